// Board text, piece names and move notation (RULES.md §1, §6, §7) for display.
// The server is authoritative; this only reads what it sends and writes it for people.

/** Files a–i, left to right from Red's side. */
export const FILES = 'abcdefghi';

/** Piece characters by letter: upper case Red, lower case Black. */
const CHARS = {
  K: '帅', A: '仕', B: '相', N: '马', R: '车', C: '炮', P: '兵',
  k: '将', a: '士', b: '象', n: '马', r: '车', c: '炮', p: '卒',
};

/** The Chinese character of a piece letter (`X`/`x` face-down: empty). */
export function pieceChar(letter) {
  return CHARS[letter] || '';
}

/** Whether a piece letter is Red's. */
export function isRed(letter) {
  return letter === letter.toUpperCase();
}

/** Square name → [file 0..8, rank 0..9]. */
export function parseSquare(name) {
  const f = FILES.indexOf(name[0]);
  const r = name.charCodeAt(1) - 48;
  if (f < 0 || r < 0 || r > 9 || name.length !== 2) throw new Error(`bad square ${name}`);
  return [f, r];
}

/** [file, rank] → square name. */
export function squareName(f, r) {
  return FILES[f] + String(r);
}

// The role each start square gives a face-down piece (RULES.md §2–3), Red's side;
// Black's is the mirror (rank 9 - r).
const START_ROLES = {
  a0: 'R', b0: 'N', c0: 'B', d0: 'A', f0: 'A', g0: 'B', h0: 'N', i0: 'R',
  b2: 'C', h2: 'C', a3: 'P', c3: 'P', e3: 'P', g3: 'P', i3: 'P',
};

/** The role letter (upper case) a face-down piece on `sq` moves as, or null. */
export function startRole(sq) {
  const [f, r] = parseSquare(sq);
  if (START_ROLES[squareName(f, r)]) return START_ROLES[squareName(f, r)];
  if (START_ROLES[squareName(f, 9 - r)]) return START_ROLES[squareName(f, 9 - r)];
  return null;
}

/** Parse the board field of a FEN into a map square → letter. */
export function parseBoard(fen) {
  const field = fen.trim().split(/\s+/)[0];
  const rows = field.split('/');
  if (rows.length !== 10) throw new Error(`bad FEN board: ${field}`);
  const board = new Map();
  rows.forEach((row, i) => {
    const rank = 9 - i;
    let file = 0;
    for (const ch of row) {
      if (ch >= '1' && ch <= '9') {
        file += ch.charCodeAt(0) - 48;
      } else {
        if (file > 8) throw new Error(`bad FEN row: ${row}`);
        board.set(squareName(file, rank), ch);
        file += 1;
      }
    }
  });
  return board;
}

/** Apply one ply (`{from, to, reveal}`) to a board map, returning a new map. */
export function applyPly(board, ply) {
  const next = new Map(board);
  const piece = next.get(ply.from);
  next.delete(ply.from);
  let placed = piece;
  if (piece && (piece === 'X' || piece === 'x') && ply.reveal) {
    placed = piece === 'X' ? ply.reveal.toUpperCase() : ply.reveal.toLowerCase();
  }
  if (placed) next.set(ply.to, placed);
  return next;
}

const RED_NUM = ['', '一', '二', '三', '四', '五', '六', '七', '八', '九'];
const POS_WORDS = { 2: ['前', '后'], 3: ['前', '中', '后'] };
const ORDINALS = ['一', '二', '三', '四', '五'];

// File number as its owner counts it: Red from its right (file i = 1), Black from its
// right (file a = 1).
function ownFile(red, f) {
  return red ? 9 - f : f + 1;
}

function numText(red, n) {
  return red ? RED_NUM[n] : String(n);
}

// The letter a piece is named by: its own role when face-up, its start-square role
// when face-down.
function namingRole(letter, sq) {
  if (letter === 'X' || letter === 'x') return startRole(sq);
  return letter.toUpperCase();
}

// Same-colour pieces named like the mover on the mover's file, front first.
function tandem(board, from, red, role) {
  const [f] = parseSquare(from);
  const list = [];
  for (const [sq, letter] of board) {
    if (isRed(letter) !== red) continue;
    const [sf, sr] = parseSquare(sq);
    if (sf === f && namingRole(letter, sq) === role) list.push([sq, sr]);
  }
  // Front = further towards the enemy.
  list.sort((x, y) => (red ? y[1] - x[1] : x[1] - y[1]));
  return list.map((e) => e[0]);
}

// Whether several files hold two or more of this side's pawns.
function pawnFilesWithTandem(board, red) {
  const counts = new Map();
  for (const [sq, letter] of board) {
    if (isRed(letter) !== red || namingRole(letter, sq) !== 'P') continue;
    const f = parseSquare(sq)[0];
    counts.set(f, (counts.get(f) || 0) + 1);
  }
  let n = 0;
  for (const c of counts.values()) if (c >= 2) n += 1;
  return n;
}

const DIAGONAL = new Set(['A', 'B', 'N']);

/** The parts of a move shared by Chinese and WXF notation: side, role (a face-down
 * piece's start-square role), own file number, direction (`fwd`/`back`/`side`),
 * target, and the same-named pieces on its file. */
export function moveParts(board, ply) {
  const letter = board.get(ply.from);
  if (!letter) return null;
  const red = isRed(letter);
  const role = namingRole(letter, ply.from);
  if (!role) return null;
  const [ff, fr] = parseSquare(ply.from);
  const [tf, tr] = parseSquare(ply.to);
  const forward = red ? tr > fr : tr < fr;
  const dir = tr === fr ? 'side' : forward ? 'fwd' : 'back';
  let target;
  if (dir === 'side' || DIAGONAL.has(role)) target = ownFile(red, tf);
  else target = Math.abs(tr - fr);
  const same = tandem(board, ply.from, red, role);
  const index = same.indexOf(ply.from);
  return { red, role, file: ownFile(red, ff), dir, target, same, index, faceDown: letter === 'X' || letter === 'x' };
}

/** For a ply that takes a face-down piece: the taken piece's letter when the viewer
 * knows it (`ply.captured`), `?` when not; null for any other ply. */
function hiddenCapture(board, ply) {
  const victim = board.get(ply.to);
  if (victim !== 'X' && victim !== 'x') return null;
  const c = ply.captured;
  return c && c !== 'X' && c !== 'x' ? c : '?';
}

/** Chinese notation of a ply played on `board` (the position before it), e.g. 「马二进三炮」. */
export function chineseMove(board, ply) {
  const p = moveParts(board, ply);
  if (!p) return ply.uci;
  const name = pieceChar(p.red ? p.role : p.role.toLowerCase());
  let head;
  if (p.same.length < 2) {
    head = name + numText(p.red, p.file);
  } else {
    const words = POS_WORDS[p.same.length] || ORDINALS;
    const word = words[p.index];
    if (p.role === 'P' && pawnFilesWithTandem(board, p.red) > 1) {
      head = word + name + numText(p.red, p.file);
    } else {
      head = word + name;
    }
  }
  const dirChar = { fwd: '进', back: '退', side: '平' }[p.dir];
  let text = head + dirChar + numText(p.red, p.target);
  if (p.faceDown && ply.reveal) {
    text += pieceChar(p.red ? ply.reveal.toUpperCase() : ply.reveal.toLowerCase());
  }
  // A face-down piece taken: 「吃士」 when the viewer knows what, 「吃暗」 when not.
  const hidden = hiddenCapture(board, ply);
  if (hidden) text += `吃${hidden === '?' ? '暗' : pieceChar(hidden)}`;
  return text;
}

/** WXF notation of a ply played on `board`, e.g. `H2+3`; a reveal is appended as `=C`. */
export function wxfMove(board, ply) {
  const p = moveParts(board, ply);
  if (!p) return ply.uci;
  const letter = { A: 'A', B: 'E', N: 'H', R: 'R', C: 'C', P: 'P', K: 'K' }[p.role];
  let head;
  if (p.same.length < 2) head = letter + p.file;
  else if (p.same.length === 2) head = letter + (p.index === 0 ? '+' : '-');
  else head = letter + String(p.index + 1);
  const dirChar = { fwd: '+', back: '-', side: '.' }[p.dir];
  let text = head + dirChar + p.target;
  if (p.faceDown && ply.reveal) text += '=' + ply.reveal.toUpperCase();
  const hidden = hiddenCapture(board, ply);
  if (hidden) text += `x${hidden === '?' ? '?' : { A: 'A', B: 'E', N: 'H', R: 'R', C: 'C', P: 'P' }[hidden.toUpperCase()]}`;
  return text;
}

/** For a start FEN and plies, the boards before each ply (index i = before ply i+1). */
export function boardsBefore(startFen, plies) {
  const boards = [];
  let board = parseBoard(startFen);
  for (const ply of plies) {
    boards.push(board);
    board = applyPly(board, ply);
  }
  boards.push(board);
  return boards;
}
