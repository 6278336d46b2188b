// The "Learn Jieqi" page (/learn): the rules of RULES.md in both languages, with small
// boards drawn by board.js — seed 004's worked example stepped through, face-down
// movement tried by clicking, and the perpetual-check rule on a tiny example. The page
// needs no server: its positions are written here.

import { t, addStrings, onLangChange } from './i18n.js';
import { h } from './util.js';
import { BoardView } from './board.js';
import { parseBoard, applyPly, chineseMove, pieceChar } from './notation.js';

const START = 'xxxxkxxxx/9/1x5x1/x1x1x1x1x/9/9/X1X1X1X1X/1X5X1/9/XXXXKXXXX';

// Seed 004's worked example (RULES.md §6), on a deal that fits its reveals.
const EXAMPLE = [
  { from: 'c3', to: 'c4', reveal: 'B', seed: '假兵七进一现相', note: 'learnEx1' },
  { from: 'e6', to: 'e5', reveal: 'c', seed: '假卒5进1现炮', note: 'learnEx2', check: 'e0' },
  { from: 'g0', to: 'e2', reveal: 'R', seed: '假相三进五现车', note: 'learnEx3' },
  { from: 'e5', to: 'e2', reveal: null, seed: '炮5进3', note: 'learnEx4' },
];

// Red's moves from the start position: every face-down piece moves as the piece of
// its start square (RULES.md §3).
const START_MOVES = [
  'a0a1', 'a0a2', 'i0i1', 'i0i2', // 假车
  'b0a2', 'b0c2', 'h0g2', 'h0i2', // 假马
  'c0a2', 'c0e2', 'g0e2', 'g0i2', // 假相
  'd0e1', 'f0e1', // 假仕
  'b2b1', 'b2b3', 'b2b4', 'b2b5', 'b2b6', 'b2b9', 'b2a2', 'b2c2', 'b2d2', 'b2e2', 'b2f2', 'b2g2', // 假炮
  'h2h1', 'h2h3', 'h2h4', 'h2h5', 'h2h6', 'h2h9', 'h2i2', 'h2g2', 'h2f2', 'h2e2', 'h2d2', 'h2c2',
  'a3a4', 'c3c4', 'e3e4', 'g3g4', 'i3i4', // 假兵
  'e0e1', // the king, face-up from the start
];

// The identities of Red's 15 face-down pieces (the pool at the start).
const RED_POOL = 'RRNNBBAACCPPPPP';

// Perpetual check (RULES.md §5): Red's rook checks from a9 and a8 in turn; the Black
// king steps between e9 and e8.
const PERPETUAL_START = '4k4/R8/9/9/9/9/9/9/9/3K5';
const PERPETUAL = [];
for (let i = 0; i < 9; i += 1) {
  PERPETUAL.push(i % 2 === 0 ? { from: 'a8', to: 'a9', check: 'e9' } : { from: 'a9', to: 'a8', check: 'e8' });
  if (i < 8) PERPETUAL.push(i % 2 === 0 ? { from: 'e9', to: 'e8' } : { from: 'e8', to: 'e9' });
}

// The boards of a sequence: index i = after i plies.
function boardsOf(fen, plies) {
  const boards = [parseBoard(fen)];
  for (const p of plies) boards.push(applyPly(boards[boards.length - 1], p));
  return boards;
}

const ROLE_KEYS = { R: 'learnRook', N: 'learnHorse', B: 'learnElephant', A: 'learnAdvisor', C: 'learnCannon', P: 'learnPawn', K: 'learnKing' };

/** Shows the Learn page in `main`. */
export function showLearn(main) {
  const example = { step: 0, boards: boardsOf(START, EXAMPLE) };
  const perpetual = { step: 0, boards: boardsOf(PERPETUAL_START, PERPETUAL) };
  const tryIt = { board: parseBoard(START), said: null, last: null };
  let views = null;

  const board = (id) => {
    const box = h('div', { class: 'board-box learn-board', id });
    return { box, view: new BoardView(box, {}) };
  };

  const showExample = (animate) => {
    const n = example.step;
    const ply = n > 0 ? EXAMPLE[n - 1] : null;
    views.example.view.setPosition(example.boards[n], {
      lastMove: ply,
      check: ply && ply.check ? ply.check : null,
      animate: animate && ply ? { from: ply.from, to: ply.to, reveal: ply.reveal } : null,
    });
    views.example.box.dataset.step = String(n);
    const list = views.exampleMoves;
    list.replaceChildren(...EXAMPLE.map((p, i) => h('li', { class: i < n ? 'played' : 'future', dataset: { ply: String(i + 1) } },
      h('b', {}, p.seed), ' ', h('span', { class: 'muted' }, `(${chineseMove(example.boards[i], { ...p, uci: p.from + p.to })})`))));
    views.exampleNote.textContent = t(ply ? ply.note : 'learnEx0');
    views.examplePrev.disabled = n === 0;
    views.exampleNext.disabled = n === EXAMPLE.length;
  };

  const showTry = (animate) => {
    const mine = START_MOVES.filter((m) => tryIt.board.get(m.slice(0, 2)) === (m.startsWith('e0') ? 'K' : 'X'));
    views.tryBoard.view.setPosition(tryIt.board, { legal: tryIt.last ? [] : mine, lastMove: tryIt.last, animate });
    views.tryBoard.box.dataset.moved = tryIt.last ? 'yes' : 'no';
    if (!tryIt.said) {
      views.trySaid.textContent = t('learnTryHint');
      return;
    }
    const { start, reveal } = tryIt.said;
    views.trySaid.textContent = reveal
      ? t('learnTryRevealed').replace('{start}', t(ROLE_KEYS[start])).replace('{piece}', `${pieceChar(reveal)} (${t(ROLE_KEYS[reveal])})`)
      : t('learnTryKing');
  };

  const tryMove = (uci) => {
    const from = uci.slice(0, 2);
    const to = uci.slice(2, 4);
    const down = tryIt.board.get(from) === 'X';
    // A reveal is a uniform draw from the pieces not yet shown (RULES.md §4).
    const reveal = down ? RED_POOL[Math.floor(Math.random() * RED_POOL.length)] : null;
    const startRoleOf = { a0: 'R', i0: 'R', b0: 'N', h0: 'N', c0: 'B', g0: 'B', d0: 'A', f0: 'A', b2: 'C', h2: 'C' }[from] || 'P';
    tryIt.board = applyPly(tryIt.board, { from, to, reveal });
    tryIt.last = { from, to };
    tryIt.said = { start: startRoleOf, reveal };
    showTry({ from, to, reveal });
  };

  const showPerpetual = () => {
    const n = perpetual.step;
    const ply = n > 0 ? PERPETUAL[n - 1] : null;
    views.perpetual.view.setPosition(perpetual.boards[n], { lastMove: ply, check: ply && ply.check ? ply.check : null });
    views.perpetual.box.dataset.step = String(n);
    const checks = Math.ceil(n / 2);
    views.perpetualNote.textContent = n === PERPETUAL.length
      ? t('learnPerpetualLost')
      : n === 0 ? t('learnPerpetual0') : t('learnPerpetualCount').replace('{n}', String(checks));
    views.perpetualPrev.disabled = n === 0;
    views.perpetualNext.disabled = n === PERPETUAL.length;
  };

  const section = (id, title, ...body) => h('section', { class: 'card learn-section', id }, h('h2', {}, t(title)), ...body);
  const para = (...keys) => keys.map((k) => h('p', {}, t(k)));
  const list = (...keys) => h('ul', {}, keys.map((k) => h('li', {}, t(k))));

  const draw = () => {
    const exampleBoard = board('learn-example-board');
    const tryBoard = board('learn-try-board');
    const perpetualBoard = board('learn-perpetual-board');
    views = {
      example: exampleBoard,
      tryBoard,
      perpetual: perpetualBoard,
      exampleMoves: h('ol', { class: 'learn-moves', id: 'learn-example-moves' }),
      exampleNote: h('p', { class: 'learn-note', id: 'learn-example-note' }),
      examplePrev: h('button', { type: 'button', id: 'learn-example-prev', onclick: () => step(-1) }, '◀ ' + t('learnPrev')),
      exampleNext: h('button', { type: 'button', id: 'learn-example-next', class: 'primary', onclick: () => step(1) }, t('learnNext') + ' ▶'),
      trySaid: h('p', { class: 'learn-note', id: 'learn-try-note' }),
      perpetualNote: h('p', { class: 'learn-note', id: 'learn-perpetual-note' }),
      perpetualPrev: h('button', { type: 'button', id: 'learn-perpetual-prev', onclick: () => perpetualStep(-1) }, '◀ ' + t('learnPrev')),
      perpetualNext: h('button', { type: 'button', id: 'learn-perpetual-next', class: 'primary', onclick: () => perpetualStep(1) }, t('learnNext') + ' ▶'),
    };
    main.replaceChildren(h('div', { class: 'learn', id: 'learn' },
      h('h1', { id: 'learn-title' }, t('learnTitle')),
      ...para('learnIntro'),
      section('learn-setup', 'learnSetupTitle', ...para('learnSetup1', 'learnSetup2')),
      section('learn-facedown', 'learnFaceDownTitle', ...para('learnFaceDown1', 'learnFaceDown2'),
        h('div', { class: 'learn-row' }, tryBoard.box,
          h('div', { class: 'learn-side' }, views.trySaid,
            h('button', { type: 'button', id: 'learn-try-reset', onclick: () => { tryIt.board = parseBoard(START); tryIt.said = null; tryIt.last = null; showTry(null); } }, t('learnReset'))))),
      section('learn-faceup', 'learnFaceUpTitle', ...para('learnFaceUp1'), list('learnFaceUpA', 'learnFaceUpB', 'learnFaceUpC')),
      section('learn-knowledge', 'learnKnowledgeTitle', ...para('learnKnowledge1', 'learnKnowledge2')),
      section('learn-example', 'learnExampleTitle', ...para('learnExampleIntro'),
        h('div', { class: 'learn-row' }, exampleBoard.box,
          h('div', { class: 'learn-side' }, views.exampleMoves, views.exampleNote,
            h('div', { class: 'learn-buttons' }, views.examplePrev, views.exampleNext)))),
      section('learn-end', 'learnEndTitle', list('learnEnd1', 'learnEnd2', 'learnEnd3'),
        h('h3', {}, t('learnPerpetualTitle')), list('learnPerpetualCheck', 'learnPerpetualChase', 'learnPerpetualBoth'),
        h('div', { class: 'learn-row' }, perpetualBoard.box,
          h('div', { class: 'learn-side' }, views.perpetualNote,
            h('div', { class: 'learn-buttons' }, views.perpetualPrev, views.perpetualNext)))),
      section('learn-draws', 'learnDrawTitle', list('learnDraw1', 'learnDraw2', 'learnDraw3', 'learnDraw4')),
      section('learn-notation', 'learnNotationTitle', ...para('learnNotation1')),
      h('p', {}, h('a', { href: '/', class: 'button primary' }, t('learnPlay'))),
    ));
    views.tryBoard.view.hooks.onMove = tryMove;
    showExample(false);
    showTry(null);
    showPerpetual();
  };

  const step = (d) => {
    const n = Math.max(0, Math.min(EXAMPLE.length, example.step + d));
    if (n === example.step) return;
    example.step = n;
    showExample(d > 0);
  };
  const perpetualStep = (d) => {
    perpetual.step = Math.max(0, Math.min(PERPETUAL.length, perpetual.step + d));
    showPerpetual();
  };

  draw();
  onLangChange(() => {
    if (document.getElementById('learn')) draw();
  });
}

addStrings({
  zh: {
    learnTitle: '学下揭棋',
    learnIntro: '揭棋（又称盖棋）是中国象棋的一种变体：棋盘和棋子都和象棋一样，但除了将帅以外的棋子开局时都反面朝上、打乱摆放。会下象棋的人，读完这一页就能下揭棋。',
    learnSetupTitle: '摆棋',
    learnSetup1: '将、帅正面朝上，摆在原位。每方其余十五只棋子洗乱后反面朝上（暗子），摆在象棋开局时这十五只棋子的位置上。',
    learnSetup2: '哪只暗子是什么，叫作“牌局”（deal）。本站由服务器随机生成牌局，开局前公布其承诺值（哈希），终局后公布牌局本身，谁都可以核对。',
    learnFaceDownTitle: '暗子怎么走',
    learnFaceDown1: '暗子按它所在位置原来的棋子走法来走、来吃：车位上的暗子（“假车”）按车走，马位上的按马走（蹩马腿照样算），炮位上的按炮走，以此类推。假仕只能走到九宫中心，假兵只能向前一步。',
    learnFaceDown2: '暗子走完一步就翻成正面（“现”），从此按它真正的身份走。所以暗子永远站在开局的位置上。试一试：点红方任意一只暗子，再点一个目标点。',
    learnTryHint: '点一只红方暗子，看它能走到哪里。',
    learnTryRevealed: '这只暗子按{start}的走法走了一步，翻开是{piece}：从现在起它按真正的身份走。',
    learnTryKing: '帅一开始就是明子，按帅的走法走。',
    learnReset: '重新摆',
    learnRook: '车', learnHorse: '马', learnElephant: '相', learnAdvisor: '仕', learnCannon: '炮', learnPawn: '兵', learnKing: '帅',
    learnFaceUpTitle: '明子怎么走',
    learnFaceUp1: '翻开的棋子（明子）按象棋规则走，只有两点不同：',
    learnFaceUpA: '仕（士）可以出九宫、过河：在任何地方斜走一格。',
    learnFaceUpB: '相（象）可以过河：在任何地方走“田”字，塞象眼照样算。',
    learnFaceUpC: '在己方半场翻出来的兵只能向前走；过河以后才能横走。将帅不能出九宫，也不能照面。',
    learnKnowledgeTitle: '谁知道什么',
    learnKnowledge1: '大家都看得见整个棋盘：哪里是暗子，每只明子是什么。一方的“棋池”是还没露面的身份：开局时十五只，翻开一只少一只。暗子翻开时，是从自己剩下的真实身份里随机抽一只。',
    learnKnowledge2: '吃掉对方的暗子时，默认只有吃子的一方知道吃的是什么（可以设为谁都不知道，或大家都知道）。终局后整个牌局公开。',
    learnExampleTitle: '例局（盖棋规则说明）',
    learnExampleIntro: '规则原文里的两个回合，一步一步看。原文记法是“假兵七进一现相”：假 = 暗子，现 = 翻开是；本站记作“兵七进一相”。',
    learnEx0: '开局：除将帅外全是暗子。点“下一步”。',
    learnEx1: '红方七路假兵进一，翻开是相。相可以过河，现在它捉着黑方的假中卒和假1路卒：假1路卒有假车保护，假中卒却会被白吃。',
    learnEx2: '黑方冲中卒，翻开是炮！隔着红方的假中兵，炮正好将军。红方只好应将。',
    learnEx3: '红方走假相三进五垫将，翻开是车——糟糕，这只车被炮打死了。',
    learnEx4: '黑方炮5进3吃车。原文说：黑方运气好，不过“死子不急吃”，也可以先多翻几只暗子。',
    learnPrev: '上一步',
    learnNext: '下一步',
    learnEndTitle: '胜负',
    learnEnd1: '被将死的一方输；轮到走棋却无棋可走（困毙）也算输。',
    learnEnd2: '认输、步时或局时用完的一方输。',
    learnEnd3: '违反长将、长捉规则的一方输（见下）。',
    learnPerpetualTitle: '长将与长捉',
    learnPerpetualCheck: '长将：同一只车、马或炮在己方连续9步（超过8个回合）之后都将军，判负，不论局面是否重复。兵、相、仕的长将允许；两只棋子轮流将军不算长将。',
    learnPerpetualChase: '长捉（比赛规则）：连续9步都捉对方同一只棋子（不是将帅）的一方判负；兵、相、仕、将帅的捉允许，兑子不算捉。',
    learnPerpetualBoth: '将军不算捉；一将一捉允许。',
    learnPerpetual0: '红车在a8，黑将在e9。点“下一步”：红车在a9和a8之间来回将军。',
    learnPerpetualCount: '同一只车已连续将军{n}次（9次判负）。',
    learnPerpetualLost: '第9次将军：红方长将，判负。局面虽然早已重复三次，但因为每一步都是同一只车将军，不算和棋，按9步规则判。',
    learnDrawTitle: '和棋',
    learnDraw1: '连续40个回合（80步）没有吃子（翻子不算）。',
    learnDraw2: '同一局面（同样的棋盘、同一方走、同样的棋池）第三次出现——除非其间一方每一步都用同一只棋子长将或长捉：那就继续下，由9步规则判。',
    learnDraw3: '双方同意和棋。',
    learnDraw4: '双方都只剩将帅。',
    learnNotationTitle: '记谱',
    learnNotation1: '着法用中国象棋记法：暗子按它所在位置的棋子称呼，后面加上翻出的身份，例如“马二进三炮”。也可以用坐标（h2e2）或WXF记法。',
    learnPlay: '去大厅下一盘',
  },
  en: {
    learnTitle: 'Learn Jieqi',
    learnIntro: 'Jieqi (揭棋, also 盖棋) is Chinese chess with hidden pieces: the same board and pieces, but every piece except the kings starts face-down and shuffled. If you play xiangqi, this page is all you need.',
    learnSetupTitle: 'Setup',
    learnSetup1: 'The kings stand face-up on their squares. Each side\'s other 15 pieces are shuffled and put face-down on the 15 squares where xiangqi starts them.',
    learnSetup2: 'Which face-down piece is which is the deal. Here the server makes a random deal and publishes a commitment (a hash) before the game and the deal itself after it, so anyone can check it.',
    learnFaceDownTitle: 'How face-down pieces move',
    learnFaceDown1: 'A face-down piece moves and captures as the piece whose start square it stands on: the one on a rook\'s square (a "false rook", 假车) moves as a rook, the one on a horse\'s square as a horse (blocked at its leg as usual), on a cannon\'s square as a cannon, and so on. A false advisor can only go to the palace centre, a false pawn only one step forward.',
    learnFaceDown2: 'After its move a face-down piece is turned face-up (revealed, 现) and from then on moves as what it really is. So a face-down piece always stands on a start square. Try it: click one of Red\'s face-down pieces, then a destination.',
    learnTryHint: 'Click a face-down Red piece to see where it can go.',
    learnTryRevealed: 'This piece moved as a {start}, and was revealed as {piece}: from now on it moves as that.',
    learnTryKing: 'The king is face-up from the start and moves as a king.',
    learnReset: 'Set up again',
    learnRook: 'rook', learnHorse: 'horse', learnElephant: 'elephant', learnAdvisor: 'advisor', learnCannon: 'cannon', learnPawn: 'pawn', learnKing: 'king',
    learnFaceUpTitle: 'How face-up pieces move',
    learnFaceUp1: 'A revealed piece moves as in xiangqi, with two differences:',
    learnFaceUpA: 'Advisors may leave the palace and cross the river: one step diagonally anywhere.',
    learnFaceUpB: 'Elephants may cross the river: two steps diagonally anywhere, still blocked by a piece on the midpoint.',
    learnFaceUpC: 'A pawn revealed on its own half only steps forward; beyond the river it also steps sideways. Kings stay in their palace and may not face each other.',
    learnKnowledgeTitle: 'Who knows what',
    learnKnowledge1: 'Everyone sees the board: where the face-down pieces are, and every face-up piece. A side\'s pool is the identities not shown yet: 15 at the start, one fewer with each reveal. A reveal is a random draw from that side\'s real remaining pieces.',
    learnKnowledge2: 'When a face-down piece is captured, by default only the capturer learns what it was (a game may say nobody, or everyone). After the game the whole deal is public.',
    learnExampleTitle: 'A worked example (from the rule text)',
    learnExampleIntro: 'The two moves of the original rule text, step by step. The text writes 「假兵七进一现相」: 假 = face-down, 现 = revealed as; this site writes 「兵七进一相」.',
    learnEx0: 'The start: everything but the kings is face-down. Press Next.',
    learnEx1: 'Red\'s false pawn on file 7 steps forward and is revealed as an elephant. Elephants cross the river: it now attacks Black\'s false centre pawn and false file-1 pawn. The file-1 pawn is guarded by the false rook; the centre pawn would be lost for nothing.',
    learnEx2: 'Black pushes the centre pawn: it is a cannon! Over Red\'s false centre pawn it gives check. Red must answer it.',
    learnEx3: 'Red blocks with the false elephant from file 3 to file 5; it is revealed as a rook — and the rook is lost to the cannon.',
    learnEx4: 'Black\'s cannon takes the rook. The text adds: Black was lucky, but a trapped piece need not be taken at once; revealing more pieces first can be better.',
    learnPrev: 'Back',
    learnNext: 'Next',
    learnEndTitle: 'Winning and losing',
    learnEnd1: 'A side that is checkmated loses; so does a side that has no legal move (stalemate loses).',
    learnEnd2: 'A side that resigns, or whose move time or game time runs out, loses.',
    learnEnd3: 'A side that breaks the perpetual rules loses (below).',
    learnPerpetualTitle: 'Perpetual check and chase',
    learnPerpetualCheck: 'Perpetual check (长将): a side loses when one and the same rook, horse or cannon has given check after each of its last 9 moves, whether or not positions repeat. Checks by pawns, elephants and advisors are allowed; two pieces checking in turn are no perpetual check.',
    learnPerpetualChase: 'Perpetual chase (长捉, tournament rules): a side loses when each of its last 9 moves chased one and the same enemy piece (not the king). Chases by pawns, elephants, advisors and the king are allowed; offering an exchange is no chase.',
    learnPerpetualBoth: 'A check is not a chase, and alternating a check and a chase is allowed.',
    learnPerpetual0: 'Red\'s rook is on a8, Black\'s king on e9. Press Next: the rook checks from a9 and a8 in turn.',
    learnPerpetualCount: 'The same rook has given check {n} times in a row (the 9th loses).',
    learnPerpetualLost: 'The 9th check: Red loses by perpetual check. The position repeated three times long ago, but since every Red move was a check by the same rook, that is no draw: the 9-move rule decides.',
    learnDrawTitle: 'Draws',
    learnDraw1: '40 moves each (80 plies) in a row without a capture (reveals do not count).',
    learnDraw2: 'The same position (board, side to move and pools) for the third time — unless since it first occurred every move of one side checked (or chased) with one same piece: then play goes on and the 9-move rule decides.',
    learnDraw3: 'Both players agree.',
    learnDraw4: 'Neither side has anything but its king.',
    learnNotationTitle: 'Notation',
    learnNotation1: 'Moves are written in xiangqi notation: a face-down piece is named after its start square, followed by the piece it revealed, e.g. 「马二进三炮」. Coordinates (h2e2) and WXF notation work too.',
    learnPlay: 'Play a game in the lobby',
  },
});
