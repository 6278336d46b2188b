// The SVG xiangqi board: lines, river, palaces, point markers, pieces as discs,
// face-down pieces as blank discs; click or drag to move; reveal and move animations.

import { FILES, parseSquare, squareName, pieceChar, isRed, startRole } from './notation.js';
import { prefs, onPrefsChange } from './prefs.js';

const NS = 'http://www.w3.org/2000/svg';
const S = 60; // distance between two points
const M = 66; // margin around the grid (room for the file numbers)
const W = 8 * S + 2 * M;
const H = 9 * S + 2 * M;
const R = 27; // piece radius
// How long a finger rests on a face-down piece before its odds show (touch screens
// have no hover); a shorter touch is a tap, a drag a drag.
const LONG_PRESS_MS = 500;

const RED_NUM = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

// The conventional traditional set: Red 帥仕相俥傌炮兵, Black 將士象車馬砲卒. Every
// character is in the embedded font (fonts/OFL.txt lists them).
const TRADITIONAL = {
  K: '帥', A: '仕', B: '相', N: '傌', R: '俥', C: '炮', P: '兵',
  k: '將', a: '士', b: '象', n: '馬', r: '車', c: '砲', p: '卒',
};
// For readers who don't read Chinese: the WXF letters (K A E H R C P), the colour tells
// the side.
const WESTERN = { K: 'K', A: 'A', B: 'E', N: 'H', R: 'R', C: 'C', P: 'P' };

/** What a piece letter shows in the chosen style (`simplified`, `traditional`,
 * `western`); empty for a face-down piece. */
export function pieceLabel(letter, style = prefs().pieces) {
  if (!letter || letter === 'X' || letter === 'x') return '';
  if (style === 'traditional') return TRADITIONAL[letter] || '';
  if (style === 'western') return WESTERN[letter.toUpperCase()] || '';
  return pieceChar(letter);
}

// The text element of a piece's character, in the chosen style.
function pieceText(parent, cls, letter) {
  const style = prefs().pieces;
  const tx = el('text', { class: style === 'western' ? `${cls} latin` : cls, y: 1 }, parent);
  tx.textContent = pieceLabel(letter, style);
  return tx;
}

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (parent) parent.appendChild(e);
  return e;
}

/** An interactive board drawn into `container`. */
export class BoardView {
  /**
   * @param {HTMLElement} container
   * @param {{onMove?: (uci: string) => void, onPremove?: (uci: string|null) => void, onHover?: (sq: string|null, letter: string|null, ev: PointerEvent) => void}} hooks
   */
  constructor(container, hooks = {}) {
    this.hooks = hooks;
    this.flipped = false;
    this.board = new Map();
    this.legal = [];
    this.selected = null;
    this.drag = null;
    this.premoveColor = null; // the side that may premove now (not to move), or null
    this.premove = null; // {from, to} waiting for our turn
    this.svg = el('svg', {
      viewBox: `0 0 ${W} ${H}`,
      class: 'board',
      role: 'img',
      'aria-label': 'xiangqi board',
    });
    container.appendChild(this.svg);
    this.theme = null;
    this.applyTheme();
    this.defs();
    this.gridLayer = el('g', { class: 'grid' }, this.svg);
    this.markLayer = el('g', { class: 'marks' }, this.svg);
    this.pieceLayer = el('g', { class: 'pieces' }, this.svg);
    this.hintLayer = el('g', { class: 'hints' }, this.svg);
    this.drawGrid();
    this.svg.addEventListener('pointerdown', (e) => this.pointerDown(e));
    this.svg.addEventListener('pointermove', (e) => this.pointerMove(e));
    this.svg.addEventListener('pointerup', (e) => this.pointerUp(e));
    this.svg.addEventListener('pointercancel', (e) => {
      this.endPress(e);
      this.cancelDrag();
    });
    this.svg.addEventListener('contextmenu', (e) => {
      // A right click cancels a premove; a long press shows odds, not a menu.
      if (this.hooks.onPremove || this.press) e.preventDefault();
    });
    this.svg.addEventListener('pointerleave', (e) => {
      if (this.hooks.onHover) this.hooks.onHover(null, null, e);
    });
    // A new piece style or theme chosen in the settings panel: draw again at once.
    onPrefsChange((key) => {
      if (key !== 'pieces' && key !== 'theme') return;
      this.applyTheme();
      this.drawGrid();
      this.redraw(null);
    });
  }

  applyTheme() {
    if (this.theme) this.svg.classList.remove(`theme-${this.theme}`);
    this.theme = prefs().theme;
    this.svg.classList.add(`theme-${this.theme}`);
  }

  defs() {
    const defs = el('defs', {}, this.svg);
    const face = el('radialGradient', { id: 'pieceFace', cx: '40%', cy: '35%', r: '70%' }, defs);
    el('stop', { offset: '0%', 'stop-color': '#fff7e2' }, face);
    el('stop', { offset: '70%', 'stop-color': '#f1d9a6' }, face);
    el('stop', { offset: '100%', 'stop-color': '#d9b574' }, face);
    const backR = el('radialGradient', { id: 'backRed', cx: '40%', cy: '35%', r: '70%' }, defs);
    el('stop', { offset: '0%', 'stop-color': '#c0574a' }, backR);
    el('stop', { offset: '100%', 'stop-color': '#7a2119' }, backR);
    const backB = el('radialGradient', { id: 'backBlack', cx: '40%', cy: '35%', r: '70%' }, defs);
    el('stop', { offset: '0%', 'stop-color': '#5c6670' }, backB);
    el('stop', { offset: '100%', 'stop-color': '#1f2429' }, backB);
    const shadow = el('filter', { id: 'pieceShadow', x: '-30%', y: '-30%', width: '160%', height: '160%' }, defs);
    el('feDropShadow', { dx: 1.5, dy: 2.5, stdDeviation: 1.6, 'flood-opacity': 0.45 }, shadow);
  }

  /** Screen position of a square's point in SVG units. */
  xy(sq) {
    const [f, r] = parseSquare(sq);
    const col = this.flipped ? 8 - f : f;
    const row = this.flipped ? r : 9 - r;
    return [M + col * S, M + row * S];
  }

  /** The square nearest to an SVG point, or null when off the board. */
  squareAt(x, y) {
    const col = Math.round((x - M) / S);
    const row = Math.round((y - M) / S);
    if (col < 0 || col > 8 || row < 0 || row > 9) return null;
    const f = this.flipped ? 8 - col : col;
    const r = this.flipped ? row : 9 - row;
    return squareName(f, r);
  }

  drawGrid() {
    const g = this.gridLayer;
    g.replaceChildren();
    el('rect', { x: 4, y: 4, width: W - 8, height: H - 8, rx: 10, class: 'wood' }, g);
    const x0 = M;
    const y0 = M;
    const x1 = M + 8 * S;
    const y1 = M + 9 * S;
    el('rect', { x: x0 - 7, y: y0 - 7, width: x1 - x0 + 14, height: y1 - y0 + 14, class: 'frame' }, g);
    const line = (xa, ya, xb, yb) => el('line', { x1: xa, y1: ya, x2: xb, y2: yb, class: 'line' }, g);
    for (let row = 0; row <= 9; row++) line(x0, y0 + row * S, x1, y0 + row * S);
    for (let col = 0; col <= 8; col++) {
      const x = x0 + col * S;
      if (col === 0 || col === 8) {
        line(x, y0, x, y1);
      } else {
        line(x, y0, x, y0 + 4 * S);
        line(x, y0 + 5 * S, x, y1);
      }
    }
    // Palaces: the diagonals of the 3×3 squares at both ends.
    line(x0 + 3 * S, y0, x0 + 5 * S, y0 + 2 * S);
    line(x0 + 5 * S, y0, x0 + 3 * S, y0 + 2 * S);
    line(x0 + 3 * S, y1, x0 + 5 * S, y1 - 2 * S);
    line(x0 + 5 * S, y1, x0 + 3 * S, y1 - 2 * S);
    // Point markers where cannons and pawns start (炮位、兵位).
    const points = [];
    for (const row of [2, 7]) for (const col of [1, 7]) points.push([col, row]);
    for (const row of [3, 6]) for (const col of [0, 2, 4, 6, 8]) points.push([col, row]);
    const gap = 4;
    const len = 10;
    for (const [col, row] of points) {
      const x = x0 + col * S;
      const y = y0 + row * S;
      for (const dx of [-1, 1]) {
        if (col + dx < 0 || col + dx > 8) continue;
        for (const dy of [-1, 1]) {
          const px = x + dx * gap;
          const py = y + dy * gap;
          el('polyline', {
            points: `${px},${py + dy * len} ${px},${py} ${px + dx * len},${py}`,
            class: 'marker',
          }, g);
        }
      }
    }
    // The river.
    const ry = y0 + 4.5 * S;
    const river = (txt, cx) => {
      const tx = el('text', { x: cx, y: ry, class: 'river' }, g);
      tx.textContent = txt;
    };
    river('楚 河', x0 + 2 * S);
    river(prefs().pieces === 'traditional' ? '漢 界' : '汉 界', x0 + 6 * S);
    // File numbers: the side at the bottom counts from its right.
    for (let col = 0; col <= 8; col++) {
      const f = this.flipped ? 8 - col : col;
      const redLabel = RED_NUM[8 - f];
      const blackLabel = String(f + 1);
      const top = el('text', { x: x0 + col * S, y: y0 - 43, class: 'filenum' }, g);
      const bottom = el('text', { x: x0 + col * S, y: y1 + 43, class: 'filenum' }, g);
      top.textContent = this.flipped ? redLabel : blackLabel;
      bottom.textContent = this.flipped ? blackLabel : redLabel;
      const coord = el('text', { x: x0 + col * S, y: y1 + 58, class: 'coord' }, g);
      coord.textContent = FILES[f];
    }
    for (let row = 0; row <= 9; row++) {
      const r = this.flipped ? row : 9 - row;
      const coord = el('text', { x: x0 - 46, y: y0 + row * S, class: 'coord' }, g);
      coord.textContent = String(r);
    }
  }

  /** Show the board from Black's side (Black at the bottom). */
  setFlipped(flipped) {
    if (flipped === this.flipped) return;
    this.flipped = flipped;
    this.drawGrid();
    this.redraw(null);
  }

  /**
   * Show a position.
   * @param {Map<string,string>} board square → piece letter
   * @param {{lastMove?: {from:string,to:string}|null, check?: string|null, legal?: string[], animate?: {from:string,to:string,reveal:string|null}|null}} opts
   */
  setPosition(board, opts = {}) {
    this.board = board;
    this.lastMove = opts.lastMove || null;
    this.checkSq = opts.check || null;
    this.legal = opts.legal || [];
    this.peekMap = opts.peek || null;
    this.premoveColor = opts.premoveColor || null;
    if (this.selected && !this.destinations(this.selected).length) this.selected = null;
    this.cancelDrag();
    this.redraw(opts.animate || null);
  }

  destinations(from) {
    const legal = this.legal.filter((m) => m.slice(0, 2) === from).map((m) => m.slice(2, 4));
    return legal.length ? legal : this.premoveDests(from);
  }

  /** Where a piece of the side that may premove could go by its moves' shape (a
   * face-down piece by its start square's role), whatever stands in the way: the
   * server's legal moves decide when the turn comes. */
  premoveDests(from) {
    const letter = this.board.get(from);
    if (!letter || !this.premoveColor || (isRed(letter) ? 'red' : 'black') !== this.premoveColor) return [];
    const red = isRed(letter);
    const role = letter === 'X' || letter === 'x' ? startRole(from) : letter.toUpperCase();
    const [f, r] = parseSquare(from);
    const out = new Set();
    const add = (df, dr) => {
      const nf = f + df;
      const nr = r + dr;
      if (nf < 0 || nf > 8 || nr < 0 || nr > 9) return;
      const sq = squareName(nf, nr);
      const there = this.board.get(sq);
      if (!there || isRed(there) !== red) out.add(sq);
    };
    const steps = {
      N: [[1, 2], [2, 1], [2, -1], [1, -2], [-1, -2], [-2, -1], [-2, 1], [-1, 2]],
      B: [[2, 2], [2, -2], [-2, 2], [-2, -2]],
      A: [[1, 1], [1, -1], [-1, 1], [-1, -1]],
      K: [[1, 0], [-1, 0], [0, 1], [0, -1]],
      P: [[0, red ? 1 : -1], [1, 0], [-1, 0]],
    };
    if (role === 'R' || role === 'C') {
      for (let i = -9; i <= 9; i++) {
        if (!i) continue;
        add(i, 0);
        add(0, i);
      }
    } else {
      for (const [df, dr] of steps[role] || []) add(df, dr);
    }
    return [...out];
  }

  /** Show (or with null clear) the premove waiting for our turn. */
  setPremove(p) {
    this.premove = p;
    this.drawMarks();
  }

  redraw(animate) {
    this.pieceLayer.replaceChildren();
    this.pieceEls = new Map();
    for (const [sq, letter] of this.board) {
      const g = this.pieceElement(letter);
      g.dataset.sq = sq;
      const real = this.peekMap && (letter === 'X' || letter === 'x') ? this.peekMap.get(sq) : null;
      if (real) {
        // After the game the deal is public: show a face-down piece's identity faintly.
        pieceText(g.querySelector('.face'), 'peek', letter === 'X' ? real.toUpperCase() : real.toLowerCase());
        g.dataset.real = real;
      }
      this.place(g, sq);
      this.pieceLayer.appendChild(g);
      this.pieceEls.set(sq, g);
    }
    this.drawMarks();
    this.drawHints();
    if (animate) this.animate(animate);
  }

  pieceElement(letter) {
    const down = letter === 'X' || letter === 'x';
    const red = isRed(letter);
    const g = el('g', { class: `piece ${red ? 'red' : 'black'}${down ? ' down' : ''}` });
    g.dataset.piece = letter;
    const face = el('g', { class: 'face' }, g);
    if (down) {
      this.backDisc(face, red);
    } else {
      el('circle', { r: R, class: 'disc', fill: 'url(#pieceFace)', filter: 'url(#pieceShadow)' }, face);
      el('circle', { r: R - 4.5, class: 'ring' }, face);
      pieceText(face, 'char', letter);
    }
    return g;
  }

  backDisc(parent, red) {
    el('circle', {
      r: R,
      class: 'disc back',
      fill: red ? 'url(#backRed)' : 'url(#backBlack)',
      filter: 'url(#pieceShadow)',
    }, parent);
    el('circle', { r: R - 5, class: 'backring' }, parent);
  }

  place(g, sq) {
    const [x, y] = this.xy(sq);
    g.style.transform = `translate(${x}px, ${y}px)`;
  }

  drawMarks() {
    const g = this.markLayer;
    g.replaceChildren();
    if (this.lastMove) {
      for (const sq of [this.lastMove.from, this.lastMove.to]) {
        const [x, y] = this.xy(sq);
        el('rect', { x: x - S / 2 + 3, y: y - S / 2 + 3, width: S - 6, height: S - 6, rx: 6, class: 'last' }, g);
      }
    }
    if (this.premove) {
      for (const sq of [this.premove.from, this.premove.to]) {
        const [x, y] = this.xy(sq);
        const mark = el('rect', { x: x - S / 2 + 3, y: y - S / 2 + 3, width: S - 6, height: S - 6, rx: 6, class: 'premove' }, g);
        mark.dataset.sq = sq;
      }
    }
    if (this.checkSq) {
      const [x, y] = this.xy(this.checkSq);
      el('circle', { cx: x, cy: y, r: R + 6, class: 'check' }, g);
    }
  }

  drawHints() {
    const g = this.hintLayer;
    g.replaceChildren();
    if (!this.selected) return;
    const [sx, sy] = this.xy(this.selected);
    el('circle', { cx: sx, cy: sy, r: R + 3, class: 'selected' }, g);
    for (const to of this.destinations(this.selected)) {
      const [x, y] = this.xy(to);
      const hint = this.board.has(to)
        ? el('circle', { cx: x, cy: y, r: R + 2, class: 'dest capture' }, g)
        : el('circle', { cx: x, cy: y, r: 8, class: 'dest' }, g);
      hint.dataset.sq = to;
    }
  }

  // Slide the moved piece from its old point, then flip it if it was revealed.
  animate({ from, to, reveal }) {
    const g = this.pieceEls.get(to);
    if (!g || !g.animate) return;
    const [fx, fy] = this.xy(from);
    const [tx, ty] = this.xy(to);
    // A piece the user dropped on its square is already there: no slide back and forth.
    const dropped = this.dropped && this.dropped.from === from && this.dropped.to === to;
    this.dropped = null;
    const slide = dropped ? 0 : 220;
    if (slide) {
      g.animate(
        [{ transform: `translate(${fx}px, ${fy}px)` }, { transform: `translate(${tx}px, ${ty}px)` }],
        { duration: slide, easing: 'ease-out' },
      );
    }
    this.pieceLayer.appendChild(g); // on top while it moves
    if (!reveal) return;
    const face = g.querySelector('.face');
    const back = el('g', { class: 'face flipback' }, g);
    this.backDisc(back, g.classList.contains('red'));
    const half = 180;
    const total = slide + 2 * half;
    face.animate(
      [
        { transform: 'scaleX(0)' },
        { transform: 'scaleX(0)', offset: (slide + half) / total },
        { transform: 'scaleX(1)' },
      ],
      { duration: total, easing: 'ease-out' },
    );
    const anim = back.animate(
      [{ transform: 'scaleX(1)' }, { transform: 'scaleX(1)', offset: slide / (slide + half) }, { transform: 'scaleX(0)' }],
      { duration: slide + half, easing: 'ease-in', fill: 'forwards' },
    );
    g.classList.add('revealing');
    anim.onfinish = () => {
      back.remove();
      g.classList.remove('revealing');
    };
  }

  svgPoint(e) {
    const ctm = this.svg.getScreenCTM();
    if (!ctm) return [0, 0];
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(ctm.inverse());
    return [p.x, p.y];
  }

  select(sq) {
    this.selected = sq;
    this.drawHints();
  }

  tryMove(from, to) {
    if (!this.destinations(from).includes(to)) return false;
    const uci = from + to;
    if (!this.legal.includes(uci)) {
      // Not our turn: kept as the premove, played when the turn comes.
      this.selected = null;
      this.drawHints();
      this.setPremove({ from, to });
      if (this.hooks.onPremove) this.hooks.onPremove(uci);
      return true;
    }
    this.selected = null;
    this.legal = [];
    this.drawHints();
    if (this.hooks.onMove) this.hooks.onMove(uci);
    return true;
  }

  // A finger on a face-down piece where odds are shown on hover: nothing happens yet.
  // Held LONG_PRESS_MS it shows the odds (and neither selects nor moves anything);
  // lifted sooner it was a tap, moved it is a drag, both played as usual from the touch.
  startPress(e) {
    if (e.pointerType !== 'touch' || !this.hooks.onHover || this.press) return false;
    const [x, y] = this.svgPoint(e);
    const sq = this.squareAt(x, y);
    const letter = sq ? this.board.get(sq) : null;
    if (letter !== 'X' && letter !== 'x') return false;
    e.preventDefault();
    const press = { sq, letter, id: e.pointerId, x0: x, y0: y, down: e, shown: false };
    press.timer = setTimeout(() => {
      press.shown = true;
      this.hooks.onHover(sq, letter, press.down);
    }, LONG_PRESS_MS);
    this.press = press;
    return true;
  }

  // The press ends (lifted, moved after the odds showed, cancelled): hide the odds.
  endPress(e) {
    const press = this.press;
    if (!press || (e && e.pointerId !== press.id)) return null;
    clearTimeout(press.timer);
    this.press = null;
    if (press.shown && this.hooks.onHover) this.hooks.onHover(null, null, e || press.down);
    return press;
  }

  pointerDown(e) {
    if (this.startPress(e)) return;
    this.pointerDownNow(e);
  }

  pointerDownNow(e) {
    // Any click on the board, or a right click, cancels a premove.
    if (this.premove) {
      this.setPremove(null);
      if (this.hooks.onPremove) this.hooks.onPremove(null);
      if (e.button === 2) return;
    }
    if (e.button !== undefined && e.button !== 0) return;
    const [x, y] = this.svgPoint(e);
    const sq = this.squareAt(x, y);
    if (!sq) return;
    if (this.selected && this.selected !== sq && this.tryMove(this.selected, sq)) {
      e.preventDefault();
      return;
    }
    if (this.destinations(sq).length) {
      e.preventDefault();
      // A click on the piece already selected puts it down again (see pointerUp).
      const again = this.selected === sq;
      this.select(sq);
      this.drag = { from: sq, x0: x, y0: y, moved: false, id: e.pointerId, again };
      try {
        this.svg.setPointerCapture(e.pointerId);
      } catch (_) {
        // Synthetic pointers cannot always be captured; dragging still works inside the board.
      }
    } else if (this.selected) {
      this.select(null);
    }
  }

  pointerMove(e) {
    const [x, y] = this.svgPoint(e);
    const press = this.press;
    if (press && e.pointerId === press.id) {
      if (press.shown) {
        // Moving the finger hides the odds; the rest of this touch does nothing.
        press.spent = true;
        this.hooks.onHover(null, null, e);
        press.shown = false;
      } else if (!press.spent && Math.hypot(x - press.x0, y - press.y0) > 6) {
        // A drag after all: from where the finger went down.
        this.endPress(e);
        this.pointerDownNow(press.down);
        this.pointerMove(e);
      }
      return;
    }
    if (this.drag && e.pointerId === this.drag.id) {
      if (!this.drag.moved && Math.hypot(x - this.drag.x0, y - this.drag.y0) > 6) {
        this.drag.moved = true;
        const g = this.pieceEls.get(this.drag.from);
        if (g) {
          g.classList.add('dragging');
          this.pieceLayer.appendChild(g);
        }
      }
      if (this.drag.moved) {
        const g = this.pieceEls.get(this.drag.from);
        if (g) g.style.transform = `translate(${x}px, ${y}px)`;
      }
      return;
    }
    if (this.hooks.onHover && e.pointerType !== 'touch') {
      const sq = this.squareAt(x, y);
      const letter = sq ? this.board.get(sq) : null;
      this.hooks.onHover(sq, letter || null, e);
    }
  }

  pointerUp(e) {
    const press = this.press && e.pointerId === this.press.id ? this.press : null;
    if (press) {
      const held = press.shown || press.spent;
      this.endPress(e);
      if (held) return; // the odds were the point: nothing selected, nothing moved
      // A tap: select or move as a click would.
      this.pointerDownNow(press.down);
    }
    const drag = this.drag;
    if (!drag || e.pointerId !== drag.id) return;
    this.drag = null;
    if (!drag.moved) {
      // A click: the piece stays selected, unless it was selected already.
      if (drag.again) this.select(null);
      return;
    }
    const [x, y] = this.svgPoint(e);
    const to = this.squareAt(x, y);
    const g = this.pieceEls.get(drag.from);
    if (g) g.classList.remove('dragging');
    if (to && to !== drag.from && this.tryMove(drag.from, to)) {
      const pre = this.premove && this.premove.from === drag.from && this.premove.to === to;
      if (pre) {
        if (g) this.place(g, drag.from); // a premove: the piece waits on its square
        return;
      }
      if (g) this.place(g, to); // stays where it was dropped until the server answers
      this.dropped = { from: drag.from, to };
      return;
    }
    if (g) this.place(g, drag.from);
  }

  cancelDrag() {
    if (!this.drag) return;
    const g = this.pieceEls && this.pieceEls.get(this.drag.from);
    if (g) {
      g.classList.remove('dragging');
      this.place(g, this.drag.from);
    }
    this.drag = null;
  }
}

/** A small standalone piece disc (for pools and captured lists). */
export function miniPiece(letter, size = 26) {
  const svg = el('svg', { viewBox: '-30 -30 60 60', width: size, height: size, class: 'mini' });
  const down = letter === 'X' || letter === 'x';
  const red = isRed(letter);
  const g = el('g', { class: `piece ${red ? 'red' : 'black'}${down ? ' down' : ''}` }, svg);
  if (down) {
    el('circle', { r: R, class: 'disc back', fill: red ? '#9a3a2e' : '#2f363d' }, g);
    el('circle', { r: R - 5, class: 'backring' }, g);
  } else {
    el('circle', { r: R, class: 'disc', fill: '#f3dfb0' }, g);
    el('circle', { r: R - 4.5, class: 'ring' }, g);
    pieceText(g, 'char', letter);
  }
  return svg;
}

// The deal's start squares in deal-text order (RULES.md §2), Red's side.
const DEAL_ORDER = ['a0', 'b0', 'c0', 'd0', 'f0', 'g0', 'h0', 'i0', 'b2', 'h2', 'a3', 'c3', 'e3', 'g3', 'i3'];

/** The deal text (`RNBAABNRCCPPPPP/rnbaabnrccppppp`) as a map start square → letter. */
export function dealMap(deal) {
  const map = new Map();
  if (!deal) return map;
  const [red, black] = deal.split('/');
  DEAL_ORDER.forEach((sq, i) => {
    if (red && red[i]) map.set(sq, red[i]);
    if (black && black[i]) map.set(sq[0] + String(9 - Number(sq[1])), black[i]);
  });
  return map;
}
