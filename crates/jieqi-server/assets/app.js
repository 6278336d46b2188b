// Entry point: picks the page from the URL (docs/protocol.md §1) and wires the header.
// Each page's module is imported when its route is taken, so a page loads only the
// scripts it uses (the lobby never fetches the game, analysis or tournament code).

import { t, currentLang, setLang, onLangChange } from './i18n.js';
import { accountHeader, showLogin, showProfile } from './account.js';
import { showNotFound } from './util.js';

const lobby = () => import('./lobby.js');
const game = () => import('./game.js');
const replay = () => import('./replay.js');
const analysis = () => import('./analysis.js');
const tournament = () => import('./tournament.js');
const learn = () => import('./learn.js');

function header() {
  const btn = document.getElementById('lang-toggle');
  const title = document.getElementById('brand-title');
  const nav = document.getElementById('nav-tournaments');
  const learnNav = document.getElementById('nav-learn');
  const draw = () => {
    btn.textContent = t('language');
    if (nav) nav.textContent = t('tournaments');
    if (learnNav) learnNav.textContent = t('learnJieqi');
    title.textContent = t('title');
    document.title = currentLang() === 'zh' ? '揭棋 Jieqi' : 'Jieqi 揭棋';
  };
  btn.addEventListener('click', () => setLang(currentLang() === 'zh' ? 'en' : 'zh'));
  onLangChange(draw);
  draw();
}

async function route() {
  const main = document.getElementById('main');
  const path = location.pathname;
  const params = new URLSearchParams(location.search);
  let m = path.match(/^\/game\/([a-z0-9]+)\/?$/);
  if (m && params.get('invite') && !params.get('seat')) return (await game()).showInvite(main, m[1], params.get('invite'));
  if (m) return (await game()).showGame(main, m[1], params.get('seat'));
  m = path.match(/^\/replay\/([a-z0-9]+)\/?$/);
  if (m) return (await replay()).showReplay(main, m[1]);
  if (/^\/analysis\/?$/.test(path)) return (await analysis()).showAnalysis(main, { fen: params.get('fen') });
  m = path.match(/^\/analysis\/([a-z0-9]+)\/?$/);
  if (m) return (await analysis()).showAnalysis(main, { gameId: m[1], ply: params.has('ply') ? Number(params.get('ply')) : null, seat: params.get('seat'), full: params.has('full') });
  if (/^\/t\/?$/.test(path)) return (await tournament()).showTournaments(main);
  if (/^\/login\/?$/.test(path)) return showLogin(main);
  if (/^\/learn\/?$/.test(path)) return (await learn()).showLearn(main);
  m = path.match(/^\/@\/([A-Za-z0-9_-]+)\/?$/);
  if (m) return showProfile(main, m[1]);
  m = path.match(/^\/t\/([a-z0-9]+)\/?$/);
  if (m) return (await tournament()).showEvent(main, m[1], params.get('org') || params.get('player'));
  if (path === '/' || path === '/index.html') return (await lobby()).showLobby(main);
  return showNotFound(main, 'page');
}

header();
accountHeader(document.getElementById('account'));
route();
