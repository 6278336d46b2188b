// Analysis board (docs/web.md, "Analysis board"): moves for both sides from any
// position as the viewer knows it, a variation tree, a reveal choice with the pool's
// odds for a face-down mover, engine lines streamed over /ws/analysis
// (docs/protocol.md §9) with an eval bar, for a finished game the whole-game
// analysis with its evaluation graph, and a live game followed move by move.

import { t, addStrings, onLangChange } from './i18n.js';
import { h, api } from './util.js';
import { BoardView, miniPiece } from './board.js';
import { boardTools } from './prefs.js';
import { parseBoard, applyPly, chineseMove, wxfMove } from './notation.js';
import { notationSwitch, notationMode, poolView } from './game.js';

const START_FEN = 'xxxxkxxxx/9/1x5x1/x1x1x1x1x/9/9/X1X1X1X1X/1X5X1/9/XXXXKXXXX w A2B2N2R2C2P5a2b2n2r2c2p5 - 0 1';
const ROLES = ['R', 'N', 'B', 'A', 'C', 'P'];
const SVG = 'http://www.w3.org/2000/svg';

addStrings({
  zh: {
    analysisBoard: '分析棋盘', analyseGame: '分析全局', analysing: '分析中', engineLines: '引擎分析',
    revealAs: '翻出为', cancel: '取消', depth: '深度', wdlDerived: '胜率由分数推算',
    wdl: '胜/和/负', fenLabel: 'FEN', loadFen: '载入', evalGraph: '评估曲线', mistake: '错着',
    blunder: '败着', startPos: '开局', delVariation: '删除变着', promote: '设为主变',
    viewerRed: '红方视角', viewerBlack: '黑方视角', viewerSpectator: '观众视角（公开信息）',
    viewerRecord: '公开棋谱', engineWaiting: '引擎忙，稍后重试…', gameOverPos: '无合法着法',
    toAnalysis: '分析', stopEngine: '停止', runEngine: '分析',
    followingLive: '● 跟随对局中', followPaused: '已暂停跟随', backToLive: '回到对局最新局面',
    liveGameOver: '对局已结束', liveConnecting: '正在连接对局…',
  },
  en: {
    analysisBoard: 'Analysis board', analyseGame: 'Analyse this game', analysing: 'Analysing', engineLines: 'Engine lines',
    revealAs: 'Reveal as', cancel: 'Cancel', depth: 'depth', wdlDerived: 'win chance derived from the score',
    wdl: 'W/D/L', fenLabel: 'FEN', loadFen: 'Load', evalGraph: 'Evaluation graph', mistake: 'mistake',
    blunder: 'blunder', startPos: 'start', delVariation: 'Delete variation', promote: 'Make main line',
    viewerRed: "Red's view", viewerBlack: "Black's view", viewerSpectator: 'public view (spectator)',
    viewerRecord: 'public record', engineWaiting: 'engine busy, retrying…', gameOverPos: 'no legal move',
    toAnalysis: 'Analyse', stopEngine: 'Stop', runEngine: 'Analyse',
    followingLive: '● Following the game', followPaused: 'Following paused', backToLive: 'Back to the game',
    liveGameOver: 'The game is over', liveConnecting: 'connecting to the game…',
  },
});

/** A node of the variation tree: the move that led to it and its continuations
 * (the first child is the main line). */
class Node {
  constructor(parent, ply) {
    this.parent = parent;
    this.ply = ply; // {uci, from, to, reveal} or null at the root
    this.children = [];
    this.id = Node.next++;
  }

  path() {
    const out = [];
    for (let n = this; n.parent; n = n.parent) out.unshift(n);
    return out;
  }
}
Node.next = 1;

/** The tree's text of a ply in the chosen notation. */
function plyText(board, ply, mode) {
  if (mode === 'iccs') return ply.uci;
  return mode === 'zh' ? chineseMove(board, ply) : wxfMove(board, ply);
}

function plyOf(uci) {
  const reveal = uci.length >= 5 ? uci[4] : null;
  return { uci, from: uci.slice(0, 2), to: uci.slice(2, 4), reveal };
}

// Pools as `{red: {R: 2}, black: {…}}` from a FEN's pool field.
function poolsOfFen(fen) {
  const field = fen.trim().split(/\s+/)[2] || '-';
  const pools = { red: {}, black: {} };
  for (const m of field.matchAll(/([A-Za-z])(\d+)/g)) {
    const n = Number(m[2]);
    if (n) pools[m[1] === m[1].toUpperCase() ? 'red' : 'black'][m[1].toUpperCase()] = n;
  }
  return pools;
}

/** Win chance for Red, 0–1, from a line (its WDL for the side to move). */
function redChance(line, turn) {
  const [w, d] = line.wdl;
  const us = (w + d / 2) / 1000;
  return turn === 'red' ? us : 1 - us;
}

function scoreText(score, turn) {
  const sign = turn === 'red' ? 1 : -1;
  if (score.mate !== undefined) {
    const m = score.mate * sign;
    return `${m > 0 ? '+' : '-'}M${Math.abs(score.mate)}`;
  }
  const cp = score.cp * sign;
  return (cp > 0 ? '+' : '') + (cp / 100).toFixed(2);
}

// The game socket's messages that change the game's version (docs/protocol.md §3.5).
const STATE_CHANGES = new Set(['move', 'end', 'draw', 'rematch', 'takeback']);

/** Follows a live game over the game socket `/ws` (docs/protocol.md §3): joined with
 * the seat's token and `watch` as that player's view (never his presence, never acting
 * for him), without as a spectator, so that each move arrives as this viewer may see
 * it and never more (the server writes every message for its receiver).
 * `on.state(d)` for every `state` (the join's answer, a resync, plies taken back, the
 * full moves after the end), `on.move(ply)`, `on.end(end)`, `on.error(d)`
 * when the game cannot be followed. Reconnects while `alive()`. */
function followGame(gameId, seat, on, alive) {
  let ws = null;
  let v = 0;
  let stopped = false;
  let ping = null;
  let backoff = 500;
  const send = (t, d) => {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(d === undefined ? { t } : { t, d }));
  };
  const stop = () => {
    stopped = true;
    clearInterval(ping);
    if (ws) ws.close();
  };
  const connect = () => {
    const proto = location.protocol === 'https:' ? 'wss' : 'ws';
    ws = new WebSocket(`${proto}://${location.host}/ws`);
    ws.onopen = () => {
      backoff = 500;
      // `watch`: the seat's view, but not the seat's presence (the player's own tab on
      // the game decides whether he is away).
      send('join', { game: gameId, token: seat || null, watch: true });
      clearInterval(ping);
      ping = setInterval(() => send('ping', { ts: Date.now() }), 25000);
    };
    ws.onmessage = (e) => {
      let m;
      try {
        m = JSON.parse(e.data);
      } catch (_) {
        return;
      }
      const d = m.d || {};
      if (m.t === 'state') {
        v = m.v;
        on.state(d);
      } else if (m.t === 'error') {
        if (d.code === 'no_game' || d.code === 'bad_token' || d.code === 'private') {
          stop();
          on.error(d);
        }
      } else if (STATE_CHANGES.has(m.t) && m.v > v) {
        if (m.v > v + 1) {
          send('sync'); // something was missed: the state tells all
          return;
        }
        v = m.v;
        if (m.t === 'move') on.move(d.ply);
        else if (m.t === 'end') {
          on.end(d);
          send('sync'); // the moves as they may be told now the game is over
        }
      }
    };
    ws.onclose = () => {
      clearInterval(ping);
      if (stopped || !alive()) return;
      setTimeout(connect, backoff);
      backoff = Math.min(backoff * 2, 5000);
    };
  };
  connect();
  return { stop };
}

/** Show the analysis board in `main`: of game `gameId` (at `ply`, as `seat` may know
 * it), or of `fen`, or of the start position. */
export async function showAnalysis(main, { gameId = null, ply = null, seat = null, fen = null, full = false } = {}) {
  main.replaceChildren(h('p', { class: 'loading' }, '…'));
  let rootFen = fen || START_FEN;
  let viewer = null;
  let finished = false;
  const root = new Node(null, null);
  let current = root;
  if (gameId) {
    try {
      const q = new URLSearchParams({ game: gameId });
      if (seat) q.set('seat', seat);
      const start = await api('GET', `/api/analysis/start?${q}`);
      viewer = start.viewer;
      finished = start.finished;
      if (finished) {
        // The public record: the game's moves are the main line.
        const rep = await api('GET', `/api/games/${gameId}/replay`);
        rootFen = rep.start_fen;
        let node = root;
        for (const p of rep.moves) {
          const child = new Node(node, { uci: p.uci, from: p.from, to: p.to, reveal: p.reveal || null });
          node.children.push(child);
          node = child;
          if (ply !== null && p.n === ply) current = node;
        }
        if (ply === null) current = node;
      }
    } catch (e) {
      main.replaceChildren(h('div', { class: 'card error-page' }, h('p', { class: 'error', id: 'analysis-error' }, e.message), h('a', { href: '/' }, t('backToLobby'))));
      return;
    }
  }

  // A live game: its moves as this viewer may see them, from the game socket, and
  // every move after them as it is played.
  const liveOn = {};
  let feed = null;
  let pageBox = null; // the board's box once drawn: the page is gone when it is
  let firstState = null;
  let liveStatus = null; // null (no live game), 'live', 'over'
  if (gameId && !finished) {
    main.replaceChildren(h('p', { class: 'loading' }, t('liveConnecting')));
    try {
      firstState = await new Promise((resolve, reject) => {
        Object.assign(liveOn, { state: resolve, move: () => {}, end: () => {}, error: (d) => reject(new Error(d.message || d.code)) });
        feed = followGame(gameId, seat, {
          state: (d) => liveOn.state(d), move: (p) => liveOn.move(p), end: (d) => liveOn.end(d), error: (d) => liveOn.error(d),
        }, () => !pageBox || document.body.contains(pageBox));
      });
    } catch (e) {
      main.replaceChildren(h('div', { class: 'card error-page' }, h('p', { class: 'error', id: 'analysis-error' }, e.message), h('a', { href: '/' }, t('backToLobby'))));
      return;
    }
    rootFen = firstState.start_fen;
    liveStatus = 'live';
  }

  try {
    parseBoard(rootFen);
  } catch (e) {
    main.replaceChildren(h('div', { class: 'card error-page' }, h('p', { class: 'error', id: 'analysis-error' }, `${t('fenLabel')}: ${e.message}`), h('a', { href: '/analysis' }, t('analysisBoard'))));
    return;
  }

  const boardBox = h('div', { class: 'board-box' });
  const bar = h('div', { class: 'eval-bar', id: 'eval-bar' }, h('div', { class: 'eval-fill' }));
  const side = h('div', { class: 'side analysis-side' });
  const below = h('div', { class: 'analysis-below' });
  main.replaceChildren(h('div', { class: 'game-page analysis-page' },
    h('div', { class: 'board-wrap analysis-wrap' }, bar, boardBox, below, h('div', { class: 'analysis-below' }, boardTools())), side));
  pageBox = boardBox;
  const view = new BoardView(boardBox, { onMove: (uci) => onBoardMove(uci) });
  let flipped = viewer === 'black';
  let posInfo = null; // the server's `position` for the current node
  const lines = new Map();
  let engineState = 'idle';
  let reqN = 0;
  let ws = null;
  let retry = null;
  let chooser = null;
  let gameAnalysis = null; // {state, done, total, analysis}

  function boardAt(node) {
    let board = parseBoard(rootFen);
    for (const n of node.path()) board = applyPly(board, n.ply);
    return board;
  }

  // --- following a live game ------------------------------------------------------
  // The game's moves are the main line: `gameNodes[i]` is the node of ply i + 1. While
  // `following`, the board moves on with each new ply and the engine starts again
  // there; once the user steps elsewhere new plies only extend the line.
  const gameNodes = [];
  let following = false;

  function liveNode() {
    return gameNodes.length ? gameNodes[gameNodes.length - 1] : root;
  }

  function samePly(a, b) {
    return a.from === b.from && a.to === b.to && (a.reveal || '').toUpperCase() === (b.reveal || '').toUpperCase();
  }

  // Ply `p` of the game (its `uci` as this viewer may see it) at index `i`: the node
  // already there, one the user had made the same move on, or a new one; either way the
  // main line from its parent.
  function gameMove(i, p) {
    const ply = { uci: p.uci, from: p.from, to: p.to, reveal: p.reveal || null };
    const parent = i === 0 ? root : gameNodes[i - 1];
    let node = parent.children.find((c) => samePly(c.ply, ply));
    if (node) {
      node.ply = ply; // the game's letters: a captured identity this viewer may know
      parent.children.splice(parent.children.indexOf(node), 1);
    } else {
      node = new Node(parent, ply);
    }
    parent.children.unshift(node);
    gameNodes.length = i;
    gameNodes.push(node);
    return node;
  }

  // A `state`: the game's whole line again (after a reconnection, plies taken back, or
  // the end, when captures may be told in full).
  function onLiveState(d) {
    const wasLive = following;
    let same = 0;
    while (same < d.moves.length && same < gameNodes.length && samePly(gameNodes[same].ply, d.moves[same])) same += 1;
    const lost = same < gameNodes.length && takenBack(same);
    d.moves.forEach((p, i) => {
      const known = gameNodes[i];
      if (known && known.ply.uci === p.uci) return;
      gameMove(i, p);
    });
    viewer = d.you;
    if (d.status === 'finished') {
      endLive();
      if (d.end && d.end.deal) {
        // The deal is public now, and so is every capture: this is a finished game's
        // record, analysable whole; nothing more will come.
        finished = true;
        viewer = 'record';
        feed.stop();
      }
    }
    if ((wasLive || lost) && current !== liveNode()) go(liveNode());
    else renderSide();
  }

  // The game keeps only its first `keep` plies (a takeback): the plies after leave the
  // main line. They go from the tree, unless the user had made moves of his own from
  // one of them: then the first of them stays, as a side line. True when the board
  // was on a ply that went.
  function takenBack(keep) {
    const gone = gameNodes.slice(keep);
    gameNodes.length = keep;
    const first = gone[0];
    const parent = first.parent;
    parent.children.splice(parent.children.indexOf(first), 1);
    const own = (n) => n.children.some((c) => !gone.includes(c) || own(c));
    if (own(first)) parent.children.push(first);
    let inside = false;
    for (let n = current; n; n = n.parent) if (n === first) inside = true;
    return inside && !parent.children.includes(first);
  }

  function onLiveMove(p) {
    if (p.n - 1 > gameNodes.length) return; // cannot be: versions keep the order
    const node = gameMove(p.n - 1, p);
    if (following) go(node);
    else renderSide();
  }

  function endLive() {
    if (liveStatus !== 'live') return;
    liveStatus = 'over';
    following = false;
    renderSide();
  }

  function followCard() {
    if (!liveStatus) return null;
    if (liveStatus === 'over') {
      return h('div', { class: 'card follow-card' }, h('span', { id: 'follow-state', class: 'muted', dataset: { state: 'over' } }, t('liveGameOver')));
    }
    return h('div', { class: 'card follow-card' },
      h('button', {
        type: 'button', id: 'follow-live', class: following ? 'following' : '', dataset: { state: following ? 'following' : 'paused' },
        onclick: () => {
          if (following) {
            following = false;
            renderSide();
          } else {
            go(liveNode());
          }
        },
      }, following ? t('followingLive') : t('backToLive')),
      following ? null : h('span', { class: 'muted' }, ` ${t('followPaused')}`));
  }

  // --- the socket ---------------------------------------------------------------
  function connect() {
    const proto = location.protocol === 'https:' ? 'wss' : 'ws';
    ws = new WebSocket(`${proto}://${location.host}/ws/analysis`);
    ws.onopen = () => request();
    ws.onmessage = (e) => onMessage(JSON.parse(e.data));
    ws.onclose = () => {
      ws = null;
      if (document.body.contains(boardBox)) setTimeout(connect, 1500);
    };
  }

  function request() {
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    clearTimeout(retry);
    reqN += 1;
    lines.clear();
    lines.error = null;
    engineState = 'running';
    ws.send(JSON.stringify({ t: 'analyse', d: { n: reqN, fen: rootFen, moves: current.path().map((n) => n.ply.uci), multipv: 3 } }));
    renderSide();
  }

  function onMessage(m) {
    const d = m.d || {};
    if (d.n !== undefined && d.n !== null && d.n !== reqN) return; // a stale answer
    if (m.t === 'position') {
      posInfo = d;
      drawBoard();
    } else if (m.t === 'line') {
      lines.set(d.multipv, d);
      renderLines();
    } else if (m.t === 'done') {
      engineState = 'done';
      renderLines();
    } else if (m.t === 'error') {
      if (d.code === 'busy') {
        engineState = 'busy';
        retry = setTimeout(request, 1500);
      } else {
        engineState = 'error';
        lines.clear();
        lines.error = d.message;
      }
      renderLines();
    }
  }

  // --- moving -------------------------------------------------------------------
  function go(node) {
    current = node;
    lines.clear(); // the lines of another position
    following = liveStatus === 'live' && node === liveNode();
    posInfo = null;
    closeChooser();
    drawBoard();
    renderSide();
    request();
  }

  function play(uci) {
    const p = plyOf(uci);
    const same = (a, b) => (a || '').toUpperCase() === (b || '').toUpperCase();
    const existing = current.children.find((c) => c.ply.from === p.from && c.ply.to === p.to && same(c.ply.reveal, p.reveal));
    if (existing) return go(existing);
    const child = new Node(current, p);
    current.children.push(child);
    go(child);
  }

  function onBoardMove(uci) {
    const board = boardAt(current);
    const letter = board.get(uci.slice(0, 2));
    if (letter === 'X' || letter === 'x') askReveal(uci, letter === 'X' ? 'red' : 'black');
    else play(uci);
  }

  function closeChooser() {
    if (chooser) chooser.remove();
    chooser = null;
  }

  // A face-down mover: which identity does it turn out to be? The pool's odds help.
  function askReveal(uci, color) {
    closeChooser();
    const pool = (posInfo && posInfo.pool && posInfo.pool[color]) || poolsOfFen(posInfo ? posInfo.fen : rootFen)[color];
    const total = ROLES.reduce((s, r) => s + (pool[r] || 0), 0);
    const red = color === 'red';
    const buttons = ROLES.filter((r) => pool[r]).map((r) => h('button', {
      type: 'button', class: 'reveal-choice', dataset: { role: r },
      onclick: () => { closeChooser(); play(uci + (red ? r : r.toLowerCase())); },
    }, miniPiece(red ? r : r.toLowerCase(), 30), h('span', { class: 'odds' }, `${Math.round((100 * pool[r]) / total)}%`)));
    chooser = h('div', { class: 'reveal-chooser card', id: 'reveal-chooser' },
      h('b', {}, t('revealAs')), h('div', { class: 'reveal-choices' }, buttons),
      h('button', { type: 'button', class: 'link', onclick: () => { closeChooser(); drawBoard(); } }, t('cancel')));
    boardBox.appendChild(chooser);
  }

  // --- drawing ------------------------------------------------------------------
  function drawBoard() {
    const board = boardAt(current);
    const last = current.ply;
    view.setFlipped(flipped);
    view.setPosition(board, {
      lastMove: last ? { from: last.from, to: last.to } : null,
      legal: posInfo ? posInfo.legal : [],
    });
    boardBox.dataset.node = String(current.id);
    boardBox.dataset.fen = posInfo ? posInfo.fen : '';
    const input = side.querySelector('#fen-input');
    if (input && posInfo && document.activeElement !== input) input.value = posInfo.fen;
    drawBar();
  }

  function drawBar() {
    const best = lines.get(1);
    const turn = posInfo ? posInfo.turn : null;
    const chance = best && turn ? redChance(best, turn) : 0.5;
    const fill = bar.querySelector('.eval-fill');
    fill.style.height = `${Math.round(chance * 100)}%`;
    bar.classList.toggle('flipped', flipped);
    bar.title = best && turn ? `${Math.round(chance * 100)}% (${t('red')})` : '';
  }

  function pvText(pv) {
    let board = boardAt(current);
    const mode = notationMode();
    const out = [];
    for (const uci of pv) {
      const p = plyOf(uci);
      if (!board.get(p.from)) break;
      out.push(plyText(board, p, mode));
      board = applyPly(board, p);
    }
    return out.join(' ');
  }

  const linesBox = h('div', { class: 'card engine-lines', id: 'engine-lines' });
  function renderLines() {
    drawBar();
    linesBox.dataset.node = String(current.id); // the node these lines are for
    const turn = posInfo ? posInfo.turn : 'red';
    const sorted = [...lines.keys()].sort((a, b) => a - b).map((k) => lines.get(k));
    const best = sorted[0];
    const head = h('div', { class: 'card-head' }, h('b', {}, t('engineLines')),
      h('span', { class: 'engine-state muted', id: 'engine-state' },
        best ? `${best.engine} · ${t('depth')} ${Math.max(...sorted.map((l) => l.depth))}` : '',
        engineState === 'running' ? ' …' : '', engineState === 'busy' ? ` ${t('engineWaiting')}` : ''),
      h('button', { type: 'button', class: 'link', id: 'engine-toggle',
        onclick: () => {
          if (engineState === 'running' && ws) { ws.send(JSON.stringify({ t: 'stop', d: null })); }
          else request();
        } }, engineState === 'running' ? t('stopEngine') : t('runEngine')));
    const body = [];
    if (posInfo && posInfo.over) body.push(h('p', { class: 'muted' }, t('gameOverPos')));
    if (lines.error) body.push(h('p', { class: 'error' }, lines.error));
    for (const l of sorted) {
      body.push(h('div', { class: 'engine-line', dataset: { multipv: l.multipv } },
        h('span', { class: 'line-score' }, scoreText(l.score, turn)),
        h('span', { class: 'line-pv', onclick: () => { if (l.pv[0]) onBoardMove(l.pv[0]); } }, pvText(l.pv))));
    }
    if (best) {
      const [w, d, lo] = best.wdl;
      body.push(h('div', { class: 'wdl muted', id: 'wdl' }, `${t('wdl')} ${(w / 10).toFixed(0)}% / ${(d / 10).toFixed(0)}% / ${(lo / 10).toFixed(0)}% (${t(turn)})`,
        best.wdl_derived ? ` · ${t('wdlDerived')}` : ''));
    }
    linesBox.replaceChildren(head, ...body);
  }

  // The tree: the main line inline, side lines in brackets under their branch point.
  function renderTree() {
    const mode = notationMode();
    const box = h('div', { class: 'var-tree moves-scroll', id: 'var-tree' });
    const moveEl = (node, board, plyIndex, forceNum) => {
      const red = plyIndex % 2 === 0;
      const num = red ? `${plyIndex / 2 + 1}.` : forceNum ? `${(plyIndex - 1) / 2 + 1}…` : '';
      return h('span', {
        class: `var-move${node === current ? ' current' : ''}`, dataset: { node: node.id, ply: plyIndex + 1 },
        onclick: () => go(node),
      }, num ? h('span', { class: 'num' }, num) : null, plyText(board, node.ply, mode));
    };
    const line = (start, board, plyIndex, container) => {
      let node = start;
      let b = board;
      let i = plyIndex;
      let first = true;
      while (node) {
        container.appendChild(moveEl(node, b, i, first));
        first = false;
        const after = applyPly(b, node.ply);
        const parent = node.parent;
        // Side lines branching where this move was played.
        if (parent && parent.children[0] === node) {
          for (const alt of parent.children.slice(1)) {
            const sub = h('span', { class: 'variation' }, '(');
            line(alt, b, i, sub);
            sub.appendChild(document.createTextNode(')'));
            container.appendChild(sub);
            first = true;
          }
        }
        b = after;
        i += 1;
        node = node.children[0];
      }
    };
    const startBtn = h('span', { class: `var-move${current === root ? ' current' : ''}`, dataset: { node: root.id, ply: 0 }, onclick: () => go(root) }, t('startPos'));
    box.appendChild(startBtn);
    if (root.children[0]) line(root.children[0], parseBoard(rootFen), plyIndexOfRoot(), box);
    return box;
  }

  // Ply numbering follows the side to move of the root FEN.
  function plyIndexOfRoot() {
    return rootFen.split(/\s+/)[1] === 'b' ? 1 : 0;
  }

  function viewerText() {
    if (!viewer) return null;
    const key = { red: 'viewerRed', black: 'viewerBlack', spectator: 'viewerSpectator', record: 'viewerRecord' }[viewer];
    return h('div', { class: 'muted', id: 'analysis-viewer' }, t(key));
  }

  function treeTools() {
    if (current === root) return null;
    const parent = current.parent;
    // A followed game's own moves stay its main line: new moves go on from them.
    if (gameNodes.includes(current)) return null;
    return h('div', { class: 'tree-tools' },
      parent.children[0] !== current && !gameNodes.includes(parent.children[0]) ? h('button', { type: 'button', class: 'link', onclick: () => {
        parent.children.splice(parent.children.indexOf(current), 1);
        parent.children.unshift(current);
        renderSide();
      } }, t('promote')) : null,
      h('button', { type: 'button', class: 'link', id: 'delete-variation', onclick: () => {
        parent.children.splice(parent.children.indexOf(current), 1);
        go(parent);
      } }, t('delVariation')));
  }

  function fenBox() {
    const input = h('input', { type: 'text', id: 'fen-input', value: posInfo ? posInfo.fen : rootFen, spellcheck: 'false' });
    return h('form', { class: 'fen-form', onsubmit: (e) => {
      e.preventDefault();
      location.href = `/analysis?fen=${encodeURIComponent(input.value.trim())}`;
    } }, h('label', {}, `${t('fenLabel')} `, input), h('button', { type: 'submit' }, t('loadFen')));
  }

  function renderSide() {
    const pools = poolsOfFen(posInfo ? posInfo.fen : rootFen);
    side.replaceChildren(...[
      h('div', { class: 'card' }, h('b', {}, t('analysisBoard')),
        gameId ? h('span', {}, ' · ', h('a', { href: finished ? `/replay/${gameId}` : `/game/${gameId}${seat ? `?seat=${seat}` : ''}` }, gameId)) : null,
        viewerText(),
        h('div', { class: 'nav' },
          h('button', { type: 'button', id: 'var-prev', onclick: () => { if (current.parent) go(current.parent); } }, '◀'),
          h('button', { type: 'button', id: 'var-next', onclick: () => { if (current.children[0]) go(current.children[0]); } }, '▶'),
          h('button', { type: 'button', id: 'flip', title: '⇅', onclick: () => { flipped = !flipped; drawBoard(); } }, '⇅'))),
      followCard(),
      linesBox,
      h('div', { class: 'card moves-card' },
        h('div', { class: 'card-head' }, h('b', {}, t('moves')), notationSwitch(() => { renderSide(); renderLines(); })),
        renderTree(), treeTools()),
      h('div', { class: 'card pools' }, h('b', {}, t('pool')), poolView('red', pools.red, null), poolView('black', pools.black, null)),
      fenBox(),
    ].filter(Boolean));
    renderLines();
    const cur = side.querySelector('.var-move.current');
    if (cur) cur.scrollIntoView({ block: 'nearest' });
    renderGameAnalysis();
  }

  // --- whole-game analysis --------------------------------------------------------
  const gameBox = h('div', { class: 'card game-analysis', id: 'game-analysis' });
  below.appendChild(gameBox);

  async function startGameAnalysis() {
    try {
      gameAnalysis = await api('POST', `/api/games/${gameId}/analysis`);
    } catch (e) {
      gameAnalysis = { state: 'error', message: e.code === 'busy' ? t('engineWaiting') : e.message };
      if (e.code === 'busy') setTimeout(startGameAnalysis, 2000);
    }
    renderGameAnalysis();
    if (gameAnalysis.state === 'running') setTimeout(pollGameAnalysis, 400);
  }

  async function pollGameAnalysis() {
    try {
      gameAnalysis = await api('GET', `/api/games/${gameId}/analysis`);
    } catch (e) {
      gameAnalysis = { state: 'error', message: e.message };
    }
    renderGameAnalysis();
    if (gameAnalysis.state === 'running') setTimeout(pollGameAnalysis, 400);
    else if (gameAnalysis.state === 'none') startGameAnalysis();
  }

  function mainLineNode(n) {
    let node = root;
    for (let i = 0; i < n && node.children[0]; i += 1) node = node.children[0];
    return node;
  }

  function renderGameAnalysis() {
    if (!gameId || !finished) {
      gameBox.hidden = true;
      return;
    }
    gameBox.hidden = false;
    const ga = gameAnalysis;
    const btn = h('button', { type: 'button', id: 'analyse-game', disabled: ga && ga.state !== 'error' ? true : null, onclick: startGameAnalysis }, t('analyseGame'));
    const parts = [h('div', { class: 'card-head' }, h('b', {}, t('evalGraph')), btn)];
    if (ga && ga.state === 'running') {
      parts.push(h('div', { class: 'progress', id: 'analysis-progress' },
        h('progress', { max: ga.total, value: ga.done }), ` ${t('analysing')} ${ga.done} / ${ga.total}`));
    } else if (ga && ga.state === 'error') {
      parts.push(h('p', { class: 'error' }, ga.message));
    } else if (ga && ga.state === 'done') {
      parts.push(graph(ga.analysis));
    }
    gameBox.replaceChildren(...parts);
  }

  // The evaluation graph: Red's score per ply (capped), swings marked.
  function graph(a) {
    const W = 600;
    const H = 140;
    const cap = 1000;
    const n = Math.max(1, a.plies.length - 1);
    const x = (i) => (i / n) * W;
    const y = (cp) => H / 2 - (Math.max(-cap, Math.min(cap, cp)) / cap) * (H / 2 - 4);
    const svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    svg.setAttribute('class', 'eval-graph');
    svg.setAttribute('id', 'eval-graph');
    const add = (name, attrs) => {
      const e = document.createElementNS(SVG, name);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
      svg.appendChild(e);
      return e;
    };
    add('rect', { x: 0, y: 0, width: W, height: H, class: 'graph-bg' });
    const pts = a.plies.map((p, i) => `${x(i).toFixed(1)},${y(p.red_cp).toFixed(1)}`);
    add('polygon', { points: `0,${H / 2} ${pts.join(' ')} ${x(n)},${H / 2}`, class: 'graph-area' });
    add('line', { x1: 0, y1: H / 2, x2: W, y2: H / 2, class: 'graph-zero' });
    add('polyline', { points: pts.join(' '), class: 'graph-line' });
    const currentPly = current.path().length;
    add('line', { x1: x(currentPly), y1: 0, x2: x(currentPly), y2: H, class: 'graph-cursor' });
    for (const s of a.swings) {
      const p = a.plies[s.ply];
      if (!p) continue;
      const c = add('circle', { cx: x(s.ply), cy: y(p.red_cp), r: 5, class: `swing ${s.kind}` });
      const title = document.createElementNS(SVG, 'title');
      title.textContent = `${s.ply}: ${t(s.kind)} (−${s.drop}%)`;
      c.appendChild(title);
    }
    svg.addEventListener('click', (e) => {
      const r = svg.getBoundingClientRect();
      const i = Math.round(((e.clientX - r.left) / r.width) * n);
      go(mainLineNode(Math.max(0, Math.min(n, i))));
    });
    const legend = h('div', { class: 'swings muted' }, a.swings.map((s) =>
      h('button', { type: 'button', class: `link swing-link ${s.kind}`, onclick: () => go(mainLineNode(s.ply)) },
        `${s.ply}. ${t(s.kind)} −${s.drop}%`)), ` ${a.engine}`);
    return h('div', {}, svg, legend);
  }

  document.addEventListener('keydown', (e) => {
    if (!document.body.contains(boardBox)) return;
    if (e.target && (e.target.tagName === 'INPUT' || e.target.tagName === 'SELECT')) return;
    if (e.key === 'ArrowLeft' && current.parent) go(current.parent);
    else if (e.key === 'ArrowRight' && current.children[0]) go(current.children[0]);
    else if (e.key === 'Escape') closeChooser();
    else return;
    e.preventDefault();
  });
  onLangChange(() => { renderSide(); });

  if (firstState) {
    firstState.moves.forEach((p, i) => gameMove(i, p));
    viewer = firstState.you;
    current = ply !== null && ply < gameNodes.length ? (ply > 0 ? gameNodes[ply - 1] : root) : liveNode();
    following = current === liveNode();
    Object.assign(liveOn, { state: onLiveState, move: onLiveMove, end: endLive, error: () => {} });
  }
  drawBoard();
  renderSide();
  connect();
  if (firstState && firstState.status === 'finished') onLiveState(firstState);
  if (gameId && finished) {
    // A stored analysis is shown at once; `full` starts one.
    api('GET', `/api/games/${gameId}/analysis`).then((ga) => {
      gameAnalysis = ga.state === 'none' ? null : ga;
      renderGameAnalysis();
      if (ga.state === 'running') setTimeout(pollGameAnalysis, 400);
      else if (ga.state === 'none' && full) startGameAnalysis();
    }).catch(() => {});
  }
}

/** A link to the analysis board of game `id` at `ply` (a seat's own view with `seat`). */
export function analysisLink(id, ply, seat, full) {
  const q = new URLSearchParams();
  if (ply !== null && ply !== undefined) q.set('ply', String(ply));
  if (seat) q.set('seat', seat);
  if (full) q.set('full', '1');
  const s = q.toString();
  return `/analysis/${id}${s ? `?${s}` : ''}`;
}

