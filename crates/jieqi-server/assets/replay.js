// Replay (打谱): a finished game step by step, with the engine's evaluation on request
// and the record downloads when the server offers them.

import { t, onLangChange, resultText } from './i18n.js';
import { h, api, showNotFound } from './util.js';
import { BoardView, dealMap } from './board.js';
import { boardTools } from './prefs.js';
import { boardsBefore } from './notation.js';
import { moveTexts, notationSwitch, moveTable, commitmentBox, notationMode, poolView } from './game.js';
import { seatName } from './account.js';
import { replayChat } from './chat.js';

const ROLE_OF = (letter) => letter.toUpperCase();

function kingSquare(board, color) {
  const k = color === 'red' ? 'K' : 'k';
  for (const [sq, letter] of board) if (letter === k) return sq;
  return null;
}

// Pools as `{red: {R: 2, …}, black: {…}}` from a FEN's pool field.
function poolsOfFen(fen) {
  const field = fen.trim().split(/\s+/)[2] || '-';
  const pools = { red: {}, black: {} };
  if (field === '-') return pools;
  for (const m of field.matchAll(/([A-Za-z])(\d+)/g)) {
    const color = m[1] === m[1].toUpperCase() ? 'red' : 'black';
    const n = Number(m[2]);
    if (n) pools[color][ROLE_OF(m[1])] = n;
  }
  return pools;
}

/** Show the replay of game `id` in `main`. */
export async function showReplay(main, id) {
  main.replaceChildren(h('p', { class: 'loading' }, '…'));
  let data;
  try {
    data = await api('GET', `/api/games/${id}/replay`);
  } catch (e) {
    if (e.code === 'no_game') return showNotFound(main, 'game');
    const text = e.code === 'not_finished' ? t('notFinished') : e.code === 'no_game' ? t('noSuchGame') : e.message;
    main.replaceChildren(h('div', { class: 'card error-page' }, h('p', { class: 'error', id: 'replay-error' }, text),
      e.code === 'not_finished' ? h('a', { href: `/game/${id}` }, t('watch')) : null, ' ',
      h('a', { href: '/' }, t('backToLobby'))));
    return;
  }
  const plies = data.moves;
  const boards = boardsBefore(data.start_fen, plies);
  const dealSquares = dealMap(data.deal);
  let ply = 0;
  let flipped = false;
  const evals = new Map();
  let records = [];

  const boardBox = h('div', { class: 'board-box' });
  const side = h('div', { class: 'side' });
  main.replaceChildren(h('div', { class: 'game-page replay' }, h('div', { class: 'board-wrap' }, boardBox, boardTools()), side));
  const view = new BoardView(boardBox, {});

  // Which record formats the server serves (docs/protocol.md §2.7: the route may not exist).
  for (const fmt of ['pgn', 'jieqibox']) {
    fetch(`/api/games/${id}/record?format=${fmt}`, { method: 'HEAD' })
      .then((res) => {
        if (res.ok) {
          records.push(fmt);
          records = ['pgn', 'jieqibox'].filter((f) => records.includes(f));
          renderSide();
        }
      })
      .catch(() => {});
  }

  function go(n) {
    ply = Math.max(0, Math.min(plies.length, n));
    render(true);
  }

  function render(animate) {
    const board = boards[ply];
    const last = ply ? plies[ply - 1] : null;
    const turn = ply % 2 === 0 ? 'red' : 'black';
    view.setFlipped(flipped);
    view.setPosition(board, {
      lastMove: last ? { from: last.from, to: last.to } : null,
      check: last && last.check ? kingSquare(board, turn) : null,
      animate: animate && last ? { from: last.from, to: last.to, reveal: last.reveal } : null,
      peek: dealSquares,
    });
    boardBox.dataset.ply = String(ply);
    renderSide();
  }

  async function evaluate() {
    evals.set(ply, 'pending');
    renderSide();
    try {
      evals.set(ply, await api('GET', `/api/games/${id}/eval?ply=${ply}`));
    } catch (e) {
      evals.set(ply, { error: e.code === 'busy' ? t('engineBusy') : e.message });
    }
    renderSide();
  }

  function evalView() {
    const ev = evals.get(ply);
    const btn = h('button', { type: 'button', id: 'evaluate', onclick: evaluate }, t('evaluate'));
    if (!ev) return h('div', { class: 'eval' }, btn);
    if (ev === 'pending') return h('div', { class: 'eval' }, btn, ' …');
    if (ev.error) return h('div', { class: 'eval' }, btn, ' ', h('span', { class: 'error' }, ev.error));
    const score = ev.score_cp === null ? '—' : (ev.score_cp > 0 ? '+' : '') + (ev.score_cp / 100).toFixed(2);
    return h('div', { class: 'eval' }, btn, ' ',
      h('span', { id: 'eval-result' }, `${t(ev.turn)} ${score} ${t('scoreFor')}`,
        ev.best ? ` · ${t('bestMove')} ${ev.best}` : '', ` · ${ev.engine} d${ev.depth}`));
  }

  function renderSide() {
    const texts = moveTexts(data.start_fen, plies, notationMode());
    const fen = ply ? data.fens[ply - 1] : data.start_fen;
    const pools = poolsOfFen(fen);
    const nav = h('div', { class: 'nav' },
      h('button', { type: 'button', id: 'first', title: t('first'), onclick: () => go(0) }, '|◀'),
      h('button', { type: 'button', id: 'prev', title: t('prev'), onclick: () => go(ply - 1) }, '◀'),
      h('span', { class: 'ply-count', id: 'ply-count' }, `${ply} / ${plies.length}`),
      h('button', { type: 'button', id: 'next', title: t('next'), onclick: () => go(ply + 1) }, '▶'),
      h('button', { type: 'button', id: 'last', title: t('last'), onclick: () => go(plies.length) }, '▶|'),
      h('button', { type: 'button', id: 'flip', title: '⇅', onclick: () => { flipped = !flipped; render(false); } }, '⇅'));
    const g = data.game;
    const seat = seatName;
    side.replaceChildren(...[
      h('div', { class: 'card' },
        h('div', {}, h('span', { class: 'red-name' }, `${t('red')} · ${seat(g.red)}`), ' – ',
          h('span', { class: 'black-name' }, `${t('black')} · ${seat(g.black)}`)),
        h('div', { class: 'status result', id: 'result' }, resultText(data.end.result, data.end.reason))),
      nav,
      evalView(),
      h('div', { class: 'analysis-links' }, h('a', { class: 'button', id: 'to-analysis', href: `/analysis/${id}?ply=${ply}` }, t('toAnalysis')),
        ' ', h('a', { class: 'button', id: 'analyse-this-game', href: `/analysis/${id}?ply=${ply}&full=1` }, t('analyseGame'))),
      h('div', { class: 'card moves-card' },
        h('div', { class: 'card-head' }, h('b', {}, t('moves')), notationSwitch(renderSide)),
        h('div', { class: 'moves-scroll', id: 'moves' }, moveTable(texts, plies, ply, go))),
      h('div', { class: 'card pools' }, h('b', {}, t('pool')), poolView('red', pools.red, null), poolView('black', pools.black, null)),
      records.length
        ? h('div', { class: 'card downloads' }, h('b', {}, `${t('download')}: `),
          records.map((f) => h('a', { class: 'button', href: `/api/games/${id}/record?format=${f}`, download: `${id}.${f === 'pgn' ? 'pgn' : 'json'}` },
            f === 'pgn' ? 'PGN' : 'JieqiBox JSON')))
        : null,
      commitmentBox(data.commitment, { deal: data.deal, salt: data.salt, commitment: data.commitment }),
      replayChat(data.chat),
      h('a', { href: '/' }, t('backToLobby')),
    ].filter(Boolean));
    const cur = side.querySelector('td.current');
    if (cur) cur.scrollIntoView({ block: 'nearest' });
  }

  document.addEventListener('keydown', (e) => {
    if (e.target && (e.target.tagName === 'INPUT' || e.target.tagName === 'SELECT')) return;
    if (e.key === 'ArrowLeft') go(ply - 1);
    else if (e.key === 'ArrowRight') go(ply + 1);
    else if (e.key === 'Home') go(0);
    else if (e.key === 'End') go(plies.length);
    else return;
    e.preventDefault();
  });
  onLangChange(() => render(false));
  render(false);
}
