// The lobby: create a game (engine or friend), and the open / live / recent lists.

import { t, onLangChange, resultText } from './i18n.js';
import { h, api, recall, remember, rememberSeat, myGames } from './util.js';
import { currentUser, seatLink } from './account.js';
import { quickPairing } from './seeks.js';

const TIMES = ['3+2', '5+3', '10+5', '15+10', '30+0', 'none'];
const MOVE_TIMES = ['', '30', '60', '120', '300'];

function select(id, options, value) {
  const s = h('select', { id, name: id });
  for (const [v, label] of options) s.appendChild(h('option', { value: v, selected: v === value }, label));
  return s;
}

function timeText(g) {
  const base = g.time === 'none' ? t('none') : g.time;
  return g.move_time ? `${base} · ${t('moveTime')} ${g.move_time}${t('seconds')}` : base;
}

/** Show the lobby in `main`. */
export function showLobby(main) {
  let timer = null;
  let message = '';
  let user = null;
  // Quick pairing (tiles, custom seek, seek list) keeps its own state and socket.
  const pairing = quickPairing();

  const settings = () => ({
    level: recall('jieqi.level', '3'),
    color: recall('jieqi.color', 'random'),
    time: recall('jieqi.time', '10+5'),
    move_time: recall('jieqi.move_time', ''),
    rules: recall('jieqi.rules', 'standard'),
    captured_identity: recall('jieqi.ci', 'capturer'),
  });

  async function create(opponent) {
    const form = main.querySelector('form.new-game');
    const val = (id) => form.querySelector(`#${id}`).value;
    const body = {
      opponent,
      color: val('color'),
      time: val('time'),
      move_time: val('move_time') === '' || val('time') === 'none' ? null : Number(val('move_time')),
      rules: val('rules'),
      captured_identity: val('captured_identity'),
    };
    if (opponent === 'engine') body.level = Number(val('level'));
    else {
      body.listed = form.querySelector('#listed').checked;
      const rated = form.querySelector('#rated');
      body.rated = Boolean(rated && rated.checked);
    }
    remember('jieqi.level', val('level'));
    remember('jieqi.color', body.color);
    remember('jieqi.time', body.time);
    remember('jieqi.move_time', val('move_time'));
    remember('jieqi.rules', body.rules);
    remember('jieqi.ci', body.captured_identity);
    try {
      const res = await api('POST', '/api/games', body);
      if (res.invite_url) {
        try {
          sessionStorage.setItem(`jieqi.invite.${res.id}`, res.invite_url);
        } catch (_) {
          // Without storage the invite link is only in the create response.
        }
      }
      rememberSeat(res.id, res.url);
      location.href = res.url;
    } catch (e) {
      message = e.code === 'busy' ? t('engineBusy') : `${t('error')}: ${e.message}`;
      draw();
    }
  }

  async function joinOpen(id) {
    try {
      const res = await api('POST', `/api/games/${id}/join`);
      rememberSeat(res.id, res.url);
      location.href = res.url;
    } catch (e) {
      message = `${t('error')}: ${e.message}`;
      refresh();
    }
  }

  // The seat of a game the account holds but this browser does not remember (the
  // account played it on another device): the server hands its token to its owner.
  async function resumeSeat(g) {
    try {
      const res = await api('POST', `/api/account/games/${g.id}/seat`, { color: g.color });
      rememberSeat(res.id, res.url);
      location.href = res.url;
    } catch (e) {
      message = `${t('error')}: ${e.message}`;
      draw();
      refresh();
    }
  }

  const lists = { open: null, live: null, recent: null, mine: [] };

  function gameRow(kind, g) {
    const players = h('span', { class: 'players' },
      seatLink(g.red, { class: 'red-name' }), ' – ', seatLink(g.black, { class: 'black-name' }));
    const info = h('span', { class: 'info' }, g.rated ? h('span', { class: 'badge rated' }, t('rated')) : null, timeText(g), ' · ', `${t('plies')} ${g.plies}`);
    let action;
    if (kind === 'mine') {
      const seatUrl = myGames().find((m) => m.id === g.id);
      const resume = seatUrl || !g.color
        ? h('a', { href: seatUrl ? seatUrl.url : `/game/${g.id}`, class: 'button primary resume' }, t('resume'))
        : h('a', {
          href: `/game/${g.id}`,
          class: 'button primary resume',
          onclick: (e) => {
            e.preventDefault();
            resumeSeat(g);
          },
        }, t('resume'));
      const myTurn = g.color && g.status === 'live' && g.turn === g.color;
      action = h('span', { class: 'actions' }, myTurn ? h('span', { class: 'badge turn' }, t('yourTurn')) : null, ' ', resume);
    } else if (kind === 'open') {
      action = h('button', { type: 'button', class: 'join', onclick: () => joinOpen(g.id) }, t('join'));
    } else if (kind === 'live') {
      action = h('a', { href: `/game/${g.id}`, class: 'button watch' }, t('watch'));
    } else {
      action = h('span', { class: 'actions' },
        h('span', { class: 'result' }, resultText(g.result, g.reason)), ' ',
        h('a', { href: `/replay/${g.id}`, class: 'button replay' }, t('replay')));
    }
    return h('li', { class: 'game-row', dataset: { id: g.id } }, players, info, action);
  }

  function listSection(kind, title) {
    const games = lists[kind];
    const body = games === null
      ? h('p', { class: 'muted' }, '…')
      : games.length
        ? h('ul', { class: 'games' }, games.map((g) => gameRow(kind, g)))
        : h('p', { class: 'muted' }, t('noGames'));
    return h('section', { class: `card list ${kind}`, id: `list-${kind}` }, h('h2', {}, title), body);
  }

  function draw() {
    const s = settings();
    const form = h('form', { class: 'card new-game', onsubmit: (e) => e.preventDefault() },
      h('h2', {}, `${t('newEngine')} / ${t('newFriend')}`),
      h('div', { class: 'fields' },
        h('label', {}, t('level'), select('level', [1, 2, 3, 4, 5, 6, 7, 8].map((n) => [String(n), String(n)]), s.level)),
        h('label', {}, t('color'), select('color', [['random', t('random')], ['red', t('red')], ['black', t('black')]], s.color)),
        h('label', {}, t('time'), select('time', TIMES.map((x) => [x, x === 'none' ? t('none') : `${x.replace('+', ` ${t('minutes')} + `)} ${t('seconds')}`]), s.time)),
        h('label', {}, t('moveTime'), select('move_time', MOVE_TIMES.map((x) => [x, x === '' ? t('none') : `${x} ${t('seconds')}`]), s.move_time)),
        h('label', {}, t('rules'), select('rules', [['standard', t('standard')], ['tournament', t('tournament')]], s.rules)),
        h('label', {}, t('capturedIdentity'), select('captured_identity', [['capturer', t('ciCapturer')], ['nobody', t('ciNobody')], ['everyone', t('ciEveryone')]], s.captured_identity)),
      ),
      h('div', { class: 'buttons' },
        h('button', { type: 'button', id: 'play-engine', class: 'primary', onclick: () => create('engine') }, t('newEngine')),
        h('button', { type: 'button', id: 'play-friend', onclick: () => create('friend') }, t('newFriend')),
        h('label', { class: 'check' }, h('input', { type: 'checkbox', id: 'listed' }), ' ', t('listed')),
        // Rated games are between accounts, against a friend, with a clock.
        user ? h('label', { class: 'check' }, h('input', { type: 'checkbox', id: 'rated' }), ' ', t('ratedGame')) : null,
      ),
      message ? h('p', { class: 'error', id: 'lobby-error' }, message) : null,
    );
    main.replaceChildren(h('div', { class: 'lobby' },
      pairing.el,
      form,
      h('section', { class: 'card tournaments-link', id: 'lobby-tournaments' },
        h('h2', {}, t('tournaments')),
        h('a', { href: '/t', class: 'button' }, `${t('tournaments')} →`)),
      lists.mine.length ? listSection('mine', t('myGames')) : h('section', { id: 'list-mine', class: 'hidden' }),
      listSection('open', t('openGames')),
      listSection('live', t('liveGames')),
      listSection('recent', t('recentGames')),
    ));
  }

  async function refresh() {
    const load = async (kind) => {
      try {
        const res = await api('GET', `/api/games?list=${kind}&limit=20`);
        lists[kind] = res.games || [];
      } catch (_) {
        lists[kind] = lists[kind] || [];
      }
    };
    // Our own seats in games not finished yet (a finished or forgotten game drops out):
    // those this browser remembers and, logged in, those of the account (on any
    // device), each game once.
    const loadMine = async () => {
      const [found, account] = await Promise.all([
        Promise.all(myGames().slice(0, 10).map((m) => api('GET', `/api/games/${m.id}`).catch(() => null))),
        user ? api('GET', '/api/account/games').then((r) => r.games || []).catch(() => []) : [],
      ]);
      const seen = new Set();
      lists.mine = [...account, ...found].filter((g) => {
        if (!g || g.status === 'finished' || seen.has(g.id)) return false;
        seen.add(g.id);
        return true;
      });
    };
    await Promise.all([load('open'), load('live'), load('recent'), loadMine()]);
    // Redraw only the lists: the form keeps its unsaved choices.
    for (const [kind, title] of [['mine', 'myGames'], ['open', 'openGames'], ['live', 'liveGames'], ['recent', 'recentGames']]) {
      const old = main.querySelector(`#list-${kind}`);
      if (!old) continue;
      if (kind === 'mine' && !lists.mine.length) old.replaceWith(h('section', { id: 'list-mine', class: 'hidden' }));
      else old.replaceWith(listSection(kind, t(title)));
    }
  }

  onLangChange(() => {
    if (main.querySelector('.lobby')) draw();
  });
  draw();
  currentUser().then((u) => {
    user = u;
    pairing.setUser(u);
    if (user && main.querySelector('.lobby') && !main.querySelector('#rated')) draw();
    if (user) refresh();
  });
  refresh();
  timer = setInterval(() => {
    if (!main.querySelector('.lobby')) clearInterval(timer);
    else if (!document.hidden) refresh();
  }, 5000);
}
