// UI strings in simplified Chinese and English; the choice is kept in localStorage.

const STRINGS = {
  zh: {
    title: '揭棋',
    anonymous: '匿名',
    login: '登录',
    signup: '注册',
    logout: '退出',
    userName: '用户名',
    password: '密码',
    nameRules: '用户名 3–20 个字符：字母、数字、_ 和 -，以字母开头；密码至少 8 个字符。',
    haveAccount: '已有账号？登录',
    noAccount: '没有账号？注册',
    rated: '等级分',
    casual: '友谊',
    ratedGame: '计等级分',
    bullet: '超快棋',
    blitz: '快棋',
    rapid: '中速棋',
    classical: '慢棋',
    category: '类别',
    rating: '等级分',
    ratings: '等级分',
    ratedGames: '计分局数',
    provisionalNote: '带 ? 的等级分为暂定（偏差 RD > 110）。',
    ratingGraph: '等级分走势',
    noRatedGames: '尚无计分对局',
    resultsByCategory: '各类别战绩',
    wins: '胜',
    draws: '和',
    losses: '负',
    won: '胜',
    lost: '负',
    drew: '和',
    gamesOf: '对局',
    all: '全部',
    opponent: '对手',
    from: '从',
    to: '到',
    filter: '筛选',
    vs: '对',
    lobby: '大厅',
    newEngine: '人机对弈',
    newFriend: '与朋友对弈',
    level: '等级',
    color: '执子',
    red: '红方',
    black: '黑方',
    random: '随机',
    time: '局时',
    increment: '每步加秒',
    moveTime: '步时',
    none: '无',
    minutes: '分钟',
    seconds: '秒',
    rules: '规则',
    standard: '标准',
    tournament: '比赛（长捉判负）',
    capturedIdentity: '吃暗子后可知身份',
    ciCapturer: '吃子方',
    ciNobody: '无人',
    ciEveryone: '所有人',
    listed: '在大厅公开（任何人可加入）',
    start: '开始',
    create: '创建',
    openGames: '等待加入的对局',
    myGames: '我的对局',
    viewing: '查看第 {n} 步',
    backToGame: '回到当前局面',
    resume: '继续',
    liveGames: '进行中的对局',
    recentGames: '最近结束的对局',
    join: '加入',
    watch: '观战',
    replay: '打谱',
    noGames: '暂无',
    engine: '电脑',
    human: '棋手',
    waitingPlayer: '等待对手加入',
    inviteLink: '把这个链接发给朋友：',
    inviteUsed: '这个邀请已被使用：座位已有人。',
    badInvite: '邀请链接无效（可能不完整）。',
    copy: '复制',
    copied: '已复制',
    yourTurn: '轮到你走',
    theirTurn: '对方思考中',
    toMove: '走棋',
    check: '将军！',
    resign: '认输',
    confirmResign: '确定认输？',
    offerDraw: '提和',
    acceptDraw: '同意和棋',
    declineDraw: '拒绝',
    drawOffered: '对方提和',
    youOfferedDraw: '你已提和',
    drawDeclined: '和棋被拒绝',
    rematch: '再来一局',
    rematchOffered: '对方要求再来一局',
    rematchWaiting: '已请求再来一局',
    rematchGo: '进入新对局',
    claimWin: '对方离线，判胜',
    moves: '着法',
    notation: '记谱',
    chinese: '中文',
    pool: '暗子池',
    captured: '吃子',
    knownCaptured: '已知被吃暗子',
    commitment: '发牌承诺',
    deal: '布子',
    salt: '盐',
    verified: '已验证 ✓',
    verifyFailed: '验证失败 ✗',
    dealWithheld: '本局的牌局仍在其他台次进行：本轮结束后在赛事页公布并验证。',
    verifying: '验证中…',
    connected: '已连接',
    reconnecting: '连接断开，正在重连…',
    spectators: '观众',
    spectator: '观战中',
    you: '你',
    away: '离线',
    result: '结果',
    stepTime: '步时',
    gameTime: '局时',
    first: '开局',
    prev: '上一步',
    next: '下一步',
    last: '终局',
    evaluate: '引擎评估',
    bestMove: '最佳',
    download: '下载',
    notFinished: '对局尚未结束',
    noSuchGame: '没有这个对局',
    backToLobby: '返回大厅',
    probability: '可能身份',
    faceDown: '暗子',
    plies: '步数',
    unknown: '未知',
    status_waiting: '等待中',
    status_live: '进行中',
    status_finished: '已结束',
    redWins: '红胜',
    blackWins: '黑胜',
    draw: '和棋',
    reason_checkmate: '将死',
    reason_stalemate: '困毙',
    reason_perpetual_check: '长将判负',
    reason_perpetual_chase: '长捉判负',
    reason_no_capture: '四十回合无吃子',
    reason_repetition: '重复局面',
    reason_bare_kings: '双方仅剩将帅',
    reason_resignation: '认输',
    reason_time: '超时',
    reason_agreement: '协议和棋',
    reason_abandonment: '弃局',
    reason_forfeit: '弃权',
    reason_adjudication: '裁定',
    error: '错误',
    language: 'English',
    scoreFor: '（走棋方视角）',
    engineBusy: '引擎繁忙，请稍后再试',
  },
  en: {
    title: 'Jieqi',
    anonymous: 'Anonymous',
    login: 'Log in',
    signup: 'Sign up',
    logout: 'Log out',
    userName: 'User name',
    password: 'Password',
    nameRules: 'User names have 3–20 characters: letters, digits, _ and -, starting with a letter. Passwords have at least 8 characters.',
    haveAccount: 'Have an account? Log in',
    noAccount: 'No account? Sign up',
    rated: 'Rated',
    casual: 'Casual',
    ratedGame: 'Rated game',
    bullet: 'Bullet',
    blitz: 'Blitz',
    rapid: 'Rapid',
    classical: 'Classical',
    category: 'Category',
    rating: 'Rating',
    ratings: 'Ratings',
    ratedGames: 'Rated games',
    provisionalNote: 'A rating with ? is provisional (deviation RD > 110).',
    ratingGraph: 'Rating history',
    noRatedGames: 'No rated games yet',
    resultsByCategory: 'Results by category',
    wins: 'Wins',
    draws: 'Draws',
    losses: 'Losses',
    won: 'Won',
    lost: 'Lost',
    drew: 'Drew',
    gamesOf: 'Games',
    all: 'All',
    opponent: 'Opponent',
    from: 'From',
    to: 'To',
    filter: 'Filter',
    vs: 'vs',
    lobby: 'Lobby',
    newEngine: 'Play the engine',
    newFriend: 'Play a friend',
    level: 'Level',
    color: 'Colour',
    red: 'Red',
    black: 'Black',
    random: 'Random',
    time: 'Game time',
    increment: 'Increment',
    moveTime: 'Move time',
    none: 'none',
    minutes: 'min',
    seconds: 's',
    rules: 'Rules',
    standard: 'Standard',
    tournament: 'Tournament (perpetual chase loses)',
    capturedIdentity: 'Captured face-down identity known to',
    ciCapturer: 'the capturer',
    ciNobody: 'nobody',
    ciEveryone: 'everyone',
    listed: 'List in the lobby (anyone may join)',
    start: 'Start',
    create: 'Create',
    openGames: 'Open games',
    myGames: 'Your games',
    viewing: 'Viewing ply {n}',
    backToGame: 'back to the game',
    resume: 'Continue',
    liveGames: 'Live games',
    recentGames: 'Recently finished',
    join: 'Join',
    watch: 'Watch',
    replay: 'Replay',
    noGames: 'None',
    engine: 'Engine',
    human: 'Player',
    waitingPlayer: 'Waiting for the opponent to join',
    inviteLink: 'Send this link to your friend:',
    inviteUsed: 'This invite has been used: the seat is taken.',
    badInvite: 'This invite link is not valid (perhaps cut short).',
    copy: 'Copy',
    copied: 'Copied',
    yourTurn: 'Your move',
    theirTurn: 'Opponent to move',
    toMove: 'to move',
    check: 'Check!',
    resign: 'Resign',
    confirmResign: 'Really resign?',
    offerDraw: 'Offer draw',
    acceptDraw: 'Accept draw',
    declineDraw: 'Decline',
    drawOffered: 'Your opponent offers a draw',
    youOfferedDraw: 'You offered a draw',
    drawDeclined: 'Draw declined',
    rematch: 'Rematch',
    rematchOffered: 'Your opponent wants a rematch',
    rematchWaiting: 'Rematch requested',
    rematchGo: 'Go to the new game',
    claimWin: 'Opponent gone: claim the win',
    moves: 'Moves',
    notation: 'Notation',
    chinese: 'Chinese',
    pool: 'Pool',
    captured: 'Captured',
    knownCaptured: 'Known captured face-down',
    commitment: 'Deal commitment',
    deal: 'Deal',
    salt: 'Salt',
    verified: 'verified ✓',
    verifyFailed: 'check FAILED ✗',
    dealWithheld: 'This deal is still being played on another board: it is published and checked on the event page when the round ends.',
    verifying: 'checking…',
    connected: 'Connected',
    reconnecting: 'Connection lost, reconnecting…',
    spectators: 'Spectators',
    spectator: 'Watching',
    you: 'you',
    away: 'away',
    result: 'Result',
    stepTime: 'Move',
    gameTime: 'Game',
    first: 'Start',
    prev: 'Back',
    next: 'Forward',
    last: 'End',
    evaluate: 'Engine evaluation',
    bestMove: 'best',
    download: 'Download',
    notFinished: 'The game is not finished yet',
    noSuchGame: 'No such game',
    backToLobby: 'Back to the lobby',
    probability: 'Possible identities',
    faceDown: 'Face-down',
    plies: 'Plies',
    unknown: 'unknown',
    status_waiting: 'waiting',
    status_live: 'live',
    status_finished: 'finished',
    redWins: 'Red wins',
    blackWins: 'Black wins',
    draw: 'Draw',
    reason_checkmate: 'checkmate',
    reason_stalemate: 'stalemate (no legal move)',
    reason_perpetual_check: 'perpetual check',
    reason_perpetual_chase: 'perpetual chase',
    reason_no_capture: '40 moves without capture',
    reason_repetition: 'repetition',
    reason_bare_kings: 'bare kings',
    reason_resignation: 'resignation',
    reason_time: 'time',
    reason_agreement: 'agreement',
    reason_abandonment: 'abandonment',
    reason_forfeit: 'forfeit',
    reason_adjudication: 'adjudication',
    error: 'Error',
    language: '中文',
    scoreFor: '(side to move)',
    engineBusy: 'The engine is busy, try again shortly',
  },
};

const KEY = 'jieqi.lang';
const listeners = [];

function initialLang() {
  let saved = null;
  try {
    saved = localStorage.getItem(KEY);
  } catch (_) {
    // Storage may be disabled; fall back to the browser language.
  }
  if (saved === 'zh' || saved === 'en') return saved;
  return (navigator.language || '').toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

let lang = initialLang();

/** The current language code, `zh` or `en`. */
export function currentLang() {
  return lang;
}

/** Translate a key; unknown keys are shown as themselves so a gap is visible, not blank. */
export function t(key) {
  const table = STRINGS[lang];
  return key in table ? table[key] : key;
}

/** Add strings of another page (`{zh: {...}, en: {...}}`); existing keys are kept. */
export function addStrings(tables) {
  for (const code of ['zh', 'en']) {
    for (const [k, v] of Object.entries(tables[code] || {})) {
      if (!(k in STRINGS[code])) STRINGS[code][k] = v;
    }
  }
}

/** Switch the language, remember it, and notify the pages to redraw. */
export function setLang(code) {
  if (code !== 'zh' && code !== 'en') return;
  lang = code;
  try {
    localStorage.setItem(KEY, code);
  } catch (_) {
    // Not remembered, but still switched for this page.
  }
  document.documentElement.lang = code === 'zh' ? 'zh-CN' : 'en';
  for (const f of listeners) f();
}

/** Call `f` whenever the language changes. */
export function onLangChange(f) {
  listeners.push(f);
}

/** Text for a game result and reason, e.g. "红胜 · 将死". */
export function resultText(result, reason) {
  // An aborted game (result `*`) has no result to name.
  if (result === '*') return t('aborted');
  let head = result;
  if (result === '1-0') head = t('redWins');
  else if (result === '0-1') head = t('blackWins');
  else if (result === '1/2-1/2') head = t('draw');
  return reason ? `${head} · ${t('reason_' + reason)}` : head;
}

document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';

// --- Issue 18, "Bugs a player hits": the strings of those fixes. ---
addStrings({
  zh: {
    moveNotSent: '连接已断开：这步棋没有发出，请在重新连接后再走',
    watchRematch: '观看再战',
    notFoundTitle: '找不到这个页面',
    notFoundGame: '没有这盘棋',
    notFoundEvent: '没有这个比赛',
    notFoundHome: '返回大厅',
  },
  en: {
    moveNotSent: 'Connection lost: this move was not sent. Move again once reconnected.',
    watchRematch: 'Watch the rematch',
    notFoundTitle: 'Page not found',
    notFoundGame: 'No such game',
    notFoundEvent: 'No such tournament',
    notFoundHome: 'Back to the lobby',
  },
});

// --- Issue 18, the board a player wants: flip, piece styles, themes, sounds, keyboard
// input, premove. ---
addStrings({
  zh: {
    flipBoard: '翻转棋盘',
    boardSettings: '棋盘设置',
  },
  en: {
    flipBoard: 'Flip board',
    boardSettings: 'Board settings',
  },
});
