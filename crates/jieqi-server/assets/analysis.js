// Analysis board (docs/web.md, "Analysis board"): moves for both sides from any
// position as the viewer knows it, a variation tree, a reveal choice with the pool's
// odds for a face-down mover, engine lines streamed over /ws/analysis
// (docs/protocol.md §9) with an eval bar, and for a finished game the whole-game
// analysis with its evaluation graph.

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
  },
  en: {
    analysisBoard: 'Analysis board', analyseGame: 'Analyse this game', analysing: 'Analysing', engineLines: 'Engine lines',
    revealAs: 'Reveal as', cancel: 'Cancel', depth: 'depth', wdlDerived: 'win chance derived from the score',
    wdl: 'W/D/L', fenLabel: 'FEN', loadFen: 'Load', evalGraph: 'Evaluation graph', mistake: 'mistake',
    blunder: 'blunder', startPos: 'start', delVariation: 'Delete variation', promote: 'Make main line',
    viewerRed: "Red's view", viewerBlack: "Black's view", viewerSpectator: 'public view (spectator)',
    viewerRecord: 'public record', engineWaiting: 'engine busy, retrying…', gameOverPos: 'no legal move',
    toAnalysis: 'Analyse', stopEngine: 'Stop', runEngine: 'Analyse',
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
      } else {
        rootFen = start.fen;
      }
    } catch (e) {
      main.replaceChildren(h('div', { class: 'card error-page' }, h('p', { class: 'error', id: 'analysis-error' }, e.message), h('a', { href: '/' }, t('backToLobby'))));
      return;
    }
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
    return h('div', { class: 'tree-tools' },
      parent.children[0] !== current ? h('button', { type: 'button', class: 'link', onclick: () => {
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

  drawBoard();
  renderSide();
  connect();
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

