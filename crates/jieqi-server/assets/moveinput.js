// Typed moves: UCI `h2e2`, Chinese 「炮二平五」 and WXF `C2.5`, read against the legal
// moves of the position shown (docs/notation.md has the conventions; a face-down piece
// is named by the role of its start square, as it moves).

import { chineseMove, wxfMove, moveParts } from './notation.js';

// Piece names of both sides and both scripts → the role letter.
const ROLE_OF_CHAR = {
  帅: 'K', 帥: 'K', 将: 'K', 將: 'K',
  仕: 'A', 士: 'A',
  相: 'B', 象: 'B',
  马: 'N', 馬: 'N', 傌: 'N',
  车: 'R', 車: 'R', 俥: 'R',
  炮: 'C', 砲: 'C', 包: 'C',
  兵: 'P', 卒: 'P',
};
const DIGIT_OF_CHAR = { 一: 1, 二: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 };
const OTHER_CHARS = { 進: '进', 後: '后' };
// WXF letters, with the common English alternatives N (horse) and B (elephant).
const WXF_ROLE = { K: 'K', A: 'A', E: 'B', B: 'B', H: 'N', N: 'N', R: 'R', C: 'C', P: 'P' };
const DIR_OF = { 进: 'fwd', 退: 'back', 平: 'side', '+': 'fwd', '-': 'back', '.': 'side' };

// Chinese text in one spelling: role letters, Arabic digits, simplified words, no
// capture or reveal suffix.
function normChinese(text) {
  let out = '';
  for (const ch of text.replace(/\s+/g, '').replace(/吃.*$/, '')) {
    if (ROLE_OF_CHAR[ch]) out += ROLE_OF_CHAR[ch];
    else if (DIGIT_OF_CHAR[ch]) out += String(DIGIT_OF_CHAR[ch]);
    else if (ch >= '１' && ch <= '９') out += String(ch.charCodeAt(0) - 0xff10);
    else out += OTHER_CHARS[ch] || ch;
  }
  return out;
}

// WXF text in one spelling: upper case, `=` read as `.`, E/H for B/N, no suffix.
function normWxf(text) {
  return text
    .replace(/\s+/g, '')
    .replace(/x.*$/, '')
    .toUpperCase()
    .replace(/=/g, '.')
    .replace(/^[BN]/, (c) => (c === 'B' ? 'E' : 'H'));
}

/**
 * Read a typed move against the legal moves `legal` (UCI) of `board` (square → letter).
 * Returns `{uci}` or `{error, candidates?}` with `error` one of `empty`, `unreadable`,
 * `illegal`, `ambiguous` (then `candidates` lists the moves it could mean).
 */
export function readMove(text, board, legal) {
  const input = (text || '').trim();
  if (!input) return { error: 'empty' };
  const uci = input.toLowerCase().replace(/[\s-]/g, '');
  if (/^[a-z][0-9][a-z][0-9]$/.test(uci)) {
    if (!/^[a-i][0-9][a-i][0-9]$/.test(uci)) return { error: 'unreadable' };
    return legal.includes(uci) ? { uci } : { error: 'illegal' };
  }
  const chinese = /[\u4e00-\u9fff]/.test(input);
  let simple = null; // role, own file, direction, target: the move without 前/后 or +/-
  let wanted;
  let written;
  if (chinese) {
    wanted = normChinese(input);
    written = (ply) => normChinese(chineseMove(board, ply));
    const m = wanted.match(/^([KABNRCP])([1-9])([进退平])([1-9])$/);
    if (m) simple = { role: m[1], file: Number(m[2]), dir: DIR_OF[m[3]], target: Number(m[4]) };
  } else if (/^[A-Za-z][1-9+\-.]/.test(input)) {
    wanted = normWxf(input);
    written = (ply) => normWxf(wxfMove(board, ply));
    const m = wanted.match(/^([KAEBHNRCP])([1-9])([+\-.])([1-9])$/);
    if (m) simple = { role: WXF_ROLE[m[1]], file: Number(m[2]), dir: DIR_OF[m[3]], target: Number(m[4]) };
  } else {
    return { error: 'unreadable' };
  }
  const plies = legal.map((u) => ({ uci: u, from: u.slice(0, 2), to: u.slice(2, 4) }));
  let found = plies.filter((p) => written(p) === wanted);
  if (!found.length && simple) {
    // Written without telling front from rear: fine while only one piece fits.
    found = plies.filter((p) => {
      const q = moveParts(board, p);
      return q && q.role === simple.role && q.file === simple.file && q.dir === simple.dir && q.target === simple.target;
    });
  }
  if (found.length === 1) return { uci: found[0].uci };
  if (found.length > 1) return { error: 'ambiguous', candidates: found.map((p) => p.uci) };
  return { error: 'illegal' };
}
