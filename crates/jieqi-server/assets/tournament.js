// Tournaments: the list and creation form (/t) and the live event page (/t/ID), with
// the organiser's controls (?org=TOKEN) and a player's own games (?player=TOKEN).
// Everything comes from GET /api/tournaments/ID, polled every few seconds.

import { t, addStrings, onLangChange, currentLang } from './i18n.js';
import { h, api, remember, recall, rememberSeat, verifyCommitment, showNotFound } from './util.js';

addStrings({
  zh: {
    tournaments: '比赛',
    newTournament: '创建比赛',
    tName: '比赛名称',
    tFormat: '赛制',
    fmt_swiss: '积分编排（瑞士制）',
    'fmt_round-robin': '单循环',
    'fmt_double-round-robin': '双循环',
    fmt_knockout: '淘汰赛',
    'fmt_swiss-knockout': '瑞士制后淘汰赛',
    fmt_hk2011: '2011 中弈杯（6 轮瑞士制 + 前 8 名三局两胜淘汰）',
    tRounds: '轮数',
    tQualifiers: '晋级人数',
    tBestOf: '每场局数（N 局 N/2+1 胜）',
    tThirdPlace: '三四名决赛',
    tDealMode: '布局方式',
    dm_random: '每台随机',
    dm_duplicate: '预先布放（同轮同局面）',
    dm_organiser: '裁判给定',
    dm_joint: '互相布放',
    tNoEvents: '暂无比赛',
    tStatus_registering: '报名中',
    tStatus_running: '进行中',
    tStatus_finished: '已结束',
    tPlayers: '选手',
    tPlayersN: '{n} 名选手',
    tJoin: '报名参赛',
    tYourName: '姓名',
    tRating: '等级分（可选）',
    tJoined: '你已报名。这是你的专属链接，请保存好（不要分享）：',
    tOrganiser: '裁判长',
    tOrgLink: '裁判长链接（保密，凭此管理比赛）：',
    tJoinLink: '报名链接（发给选手）：',
    tStart: '截止报名并编排第 1 轮',
    tPair: '编排下一轮',
    tUnpair: '撤销最后一轮编排（未开始时）',
    tDeals: '裁判给定的局面（每行一个，一个用于所有台次或每台一个）',
    tRemove: '移除',
    tWithdraw: '退赛',
    tWithdrawn: '已退赛',
    tYourGames: '你的对局',
    tPlay: '下棋',
    tRound: '第 {n} 轮',
    tBoard: '台',
    tResult: '结果',
    tBye: '轮空：{p}',
    tWatch: '观战',
    tPrivate: '局面公布前不可观战',
    tCommitment: '局面承诺',
    tDealPublished: '局面',
    tVerified: '已验证 ✓',
    tVerifyFailed: '验证失败 ✗',
    tStandings: '排名',
    tRank: '名次',
    tPoints: '积分',
    tCrosstable: '交叉表',
    tBracket: '淘汰赛对阵',
    tThird: '三四名',
    tPlaces: '最终名次',
    tPlace: '名次',
    tExport: '导出 HTML 成绩表',
    tGame: '第 {n} 局',
    tContribute: '互相布放：提交你的秘密',
    tSend: '提交',
    tGiven: '已提交',
    tSet: '录入',
    tNone: '—',
    tOpponent: '对手',
    tTime: '用时',
    tNotFound: '找不到这个比赛',
    tRoundDeals: '本轮布局方式',
    tEventDefault: '比赛默认',
    tRoundsN: '{n} 轮',
    tBestOfN: '{n} 局制',
    tTopN: '前 {n} 名晋级',
    tFinal: '决赛',
    tSemi: '半决赛',
    tQuarter: '四分之一决赛',
    tLastN: '{n} 强',
  },
  en: {
    tournaments: 'Tournaments',
    newTournament: 'New tournament',
    tName: 'Event name',
    tFormat: 'Format',
    fmt_swiss: 'Swiss',
    'fmt_round-robin': 'Round robin',
    'fmt_double-round-robin': 'Double round robin',
    fmt_knockout: 'Knockout',
    'fmt_swiss-knockout': 'Swiss, then knockout',
    fmt_hk2011: '2011 Hong Kong cup (6 Swiss rounds + top-8 best-of-3 knockout)',
    tRounds: 'Rounds',
    tQualifiers: 'Qualifiers',
    tBestOf: 'Games per match (best of N)',
    tThirdPlace: 'Third-place match',
    tDealMode: 'Deals',
    dm_random: 'Random per board',
    dm_duplicate: 'Duplicate (one deal per round)',
    dm_organiser: 'Given by the organiser',
    dm_joint: 'Joint (both players contribute)',
    tNoEvents: 'No tournaments yet',
    tStatus_registering: 'Registration open',
    tStatus_running: 'In play',
    tStatus_finished: 'Finished',
    tPlayers: 'Players',
    tPlayersN: '{n} players',
    tJoin: 'Join the event',
    tYourName: 'Name',
    tRating: 'Rating (optional)',
    tJoined: 'You are entered. This is your own link — keep it, don\'t share it:',
    tOrganiser: 'Organiser',
    tOrgLink: 'Organiser link (secret: it runs the event):',
    tJoinLink: 'Join link (send it to the players):',
    tStart: 'Close registration and pair round 1',
    tPair: 'Pair the next round',
    tUnpair: 'Undo the last pairing (before play)',
    tDeals: 'Organiser deals (one per line: one for every board, or one per board)',
    tRemove: 'Remove',
    tWithdraw: 'Withdraw',
    tWithdrawn: 'withdrawn',
    tYourGames: 'Your games',
    tPlay: 'Play',
    tRound: 'Round {n}',
    tBoard: 'Board',
    tResult: 'Result',
    tBye: 'Bye: {p}',
    tWatch: 'Watch',
    tPrivate: 'private until the deal is published',
    tCommitment: 'Deal commitment',
    tDealPublished: 'Deal',
    tVerified: 'verified ✓',
    tVerifyFailed: 'check FAILED ✗',
    tStandings: 'Standings',
    tRank: 'Rank',
    tPoints: 'Points',
    tCrosstable: 'Crosstable',
    tBracket: 'Knockout bracket',
    tThird: 'Third place',
    tPlaces: 'Final places',
    tPlace: 'Place',
    tExport: 'Export HTML standings',
    tGame: 'Game {n}',
    tContribute: 'Joint deal: give your secret',
    tSend: 'Send',
    tGiven: 'given',
    tSet: 'Set',
    tNone: '—',
    tOpponent: 'Opponent',
    tTime: 'Time',
    tNotFound: 'No such tournament',
    tRoundDeals: 'Deals of the next round',
    tEventDefault: 'event default',
    tRoundsN: '{n} rounds',
    tBestOfN: 'best of {n}',
    tTopN: 'top {n} qualify',
    tFinal: 'Final',
    tSemi: 'Semi-finals',
    tQuarter: 'Quarter-finals',
    tLastN: 'Last {n}',
  },
});

// Issue 18: how places were decided, and the tie-breaks explained.
addStrings({
  zh: {
    tHow_standings: '按积分排名',
    tHow_champion: '冠军',
    tHow_final: '决赛',
    'tHow_semi-final': '半决赛',
    'tHow_quarter-final': '四分之一决赛',
    'tHow_third-place match': '三四名决赛',
    'tHow_in play': '比赛中',
    tHowTable: '积分第 {n} 名',
    tHowLast: '{n} 强赛',
    tbShort_BH: '布赫',
    tbShort_MBH: '中位布赫',
    tbShort_SB: '索伯',
    tbShort_W: '胜局',
    tbShort_DE: '直胜',
    tbText_BH: '布赫霍尔茨分：所有对手积分之和',
    tbText_MBH: '中位布赫霍尔茨分：去掉最高和最低一名对手后的对手积分之和',
    tbText_SB: '索伯分：所胜对手积分之和加所和对手积分的一半',
    tbText_W: '胜局数（含弃权胜和轮空）',
    tbText_DE: '直胜：同分选手之间的对局得分（须两两都已交手）',
  },
  en: {
    tHow_standings: 'by the standings',
    tHow_champion: 'champion',
    tHow_final: 'final',
    'tHow_semi-final': 'semi-final',
    'tHow_quarter-final': 'quarter-final',
    'tHow_third-place match': 'third-place match',
    'tHow_in play': 'in play',
    tHowTable: 'standings, {n}',
    tHowLast: 'last {n}',
    tbShort_BH: 'BH',
    tbShort_MBH: 'MBH',
    tbShort_SB: 'SB',
    tbShort_W: 'W',
    tbShort_DE: 'DE',
    tbText_BH: 'Buchholz: the sum of all opponents’ scores',
    tbText_MBH: 'Median Buchholz: Buchholz without the best and the worst opponent',
    tbText_SB: 'Sonneborn-Berger: beaten opponents’ scores plus half the drawn opponents’ scores',
    tbText_W: 'Wins (forfeits and full-point byes included)',
    tbText_DE: 'Direct encounter: points among the tied players, if they have all met',
  },
});

const FORMATS = ['swiss', 'round-robin', 'double-round-robin', 'knockout', 'swiss-knockout', 'hk2011'];
const DEAL_MODES = ['random', 'duplicate', 'organiser', 'joint'];
const TIMES = ['3+2', '5+3', '10+5', '15+10', '30+0', 'none'];
const RESULTS = ['1-0', '0-1', '1/2', '+-', '-+', '--'];

/** A joint-deal contribution drawn by the browser: 32 hex digits (128 bits) from the
 * platform's CSPRNG, so nobody has to invent a secret the opponent could guess. */
function randomSecret() {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

function fill(text, vars) {
  return text.replace(/\{(\w+)\}/g, (_, k) => (k in vars ? String(vars[k]) : `{${k}}`));
}

function pts(x) {
  if (x === null || x === undefined) return '';
  const whole = Math.floor(x);
  const half = Math.abs(x - whole - 0.5) < 1e-9;
  if (half) return whole === 0 ? '½' : `${whole}½`;
  return Number.isInteger(x) ? String(x) : x.toFixed(2).replace(/0+$/, '');
}

function resultShort(r) {
  return r === '1/2' ? '½-½' : r || '';
}

/** The format in the page's language, from the event's settings. */
function formatText(settings) {
  const f = settings.format || {};
  const parts = [];
  if (f.type === 'round-robin') parts.push(t(f.cycles === 2 ? 'fmt_double-round-robin' : 'fmt_round-robin'));
  else parts.push(t(`fmt_${f.type}`));
  const rounds = f.type === 'swiss' ? f.rounds : f.swiss_rounds;
  if (rounds) parts.push(fill(t('tRoundsN'), { n: rounds }));
  if (f.qualifiers) parts.push(fill(t('tTopN'), { n: f.qualifiers }));
  const ko = f.type === 'knockout' ? f : f.knockout;
  if (ko && ko.best_of) parts.push(fill(t('tBestOfN'), { n: ko.best_of }));
  return parts.join(' · ');
}

/** A place, "1=" when shared with another player. */
function placeText(place, places) {
  if (place === null || place === undefined) return '…';
  return places.filter((p) => p.place === place).length > 1 ? `${place}=` : `${place}.`;
}

/** How a place was decided (the server's English words), in the page's language. */
function howText(how) {
  const m = /^(table|last) (\d+)$/.exec(how || '');
  if (m) return fill(t(m[1] === 'table' ? 'tHowTable' : 'tHowLast'), { n: m[2] });
  const key = `tHow_${how}`;
  return t(key) === key ? how : t(key);
}

/** A tie-break's abbreviation and its explanation, in the page's language. */
function tbShort(x) {
  const key = `tbShort_${x}`;
  return t(key) === key ? x : t(key);
}
function tbText(x) {
  const key = `tbText_${x}`;
  return t(key) === key ? x : t(key);
}

/** A knockout stage's name from its number of bracket matches. */
function stageName(stage) {
  const mains = stage.matches.filter((m) => m.kind === 'main').length;
  if (mains === 1) return t('tFinal');
  if (mains === 2) return t('tSemi');
  if (mains === 4) return t('tQuarter');
  return fill(t('tLastN'), { n: 2 * mains });
}

function sel(id, options, value) {
  const s = h('select', { id, name: id });
  for (const [v, label] of options) s.appendChild(h('option', { value: v, selected: v === value }, label));
  return s;
}

/** The tournament list and the form to create one. */
export function showTournaments(main) {
  let message = '';
  let events = null;

  async function create() {
    const f = main.querySelector('form.new-tournament');
    const val = (id) => f.querySelector(`#${id}`).value;
    const body = {
      name: val('t-name'),
      format: val('t-format'),
      rounds: Number(val('t-rounds')),
      qualifiers: Number(val('t-qualifiers')),
      best_of: Number(val('t-best-of')),
      third_place: f.querySelector('#t-third').checked,
      deal_mode: val('t-deal-mode'),
      time: val('t-time'),
      rules: val('t-rules'),
    };
    try {
      const res = await api('POST', '/api/tournaments', body);
      remember(`jieqi.t.${res.id}`, res.organiser_url);
      location.href = res.organiser_url;
    } catch (e) {
      message = `${t('error')}: ${e.message}`;
      draw();
    }
  }

  function draw() {
    const form = h('form', { class: 'card new-tournament', onsubmit: (e) => { e.preventDefault(); create(); } },
      h('h2', {}, t('newTournament')),
      h('div', { class: 'fields' },
        h('label', {}, t('tName'), h('input', { id: 't-name', name: 't-name', maxlength: 80, required: true })),
        h('label', {}, t('tFormat'), sel('t-format', FORMATS.map((x) => [x, t(`fmt_${x}`)]), 'swiss')),
        h('label', { dataset: { for: 'swiss swiss-knockout' } }, t('tRounds'), h('input', { id: 't-rounds', type: 'number', min: 1, max: 30, value: 5 })),
        h('label', { dataset: { for: 'swiss-knockout' } }, t('tQualifiers'), h('input', { id: 't-qualifiers', type: 'number', min: 2, max: 64, value: 8 })),
        h('label', { dataset: { for: 'knockout swiss-knockout' } }, t('tBestOf'), h('input', { id: 't-best-of', type: 'number', min: 1, max: 9, value: 3 })),
        h('label', {}, t('tDealMode'), sel('t-deal-mode', DEAL_MODES.map((x) => [x, t(`dm_${x}`)]), 'duplicate')),
        h('label', {}, t('time'), sel('t-time', TIMES.map((x) => [x, x === 'none' ? t('none') : `${x.replace('+', ` ${t('minutes')} + `)} ${t('seconds')}`]), '10+5')),
        h('label', {}, t('rules'), sel('t-rules', [['standard', t('standard')], ['tournament', t('tournament')]], 'standard')),
      ),
      h('div', { class: 'buttons' },
        h('button', { type: 'submit', id: 't-create', class: 'primary' }, t('create')),
        h('label', { class: 'check', dataset: { for: 'knockout swiss-knockout' } }, h('input', { type: 'checkbox', id: 't-third' }), ' ', t('tThirdPlace')),
      ),
      message ? h('p', { class: 'error' }, message) : null,
    );
    // What the organiser has entered survives a redraw (the list arriving after he
    // began typing, a change of language).
    const old = main.querySelector('form.new-tournament');
    if (old) {
      for (const was of old.querySelectorAll('input[id], select[id]')) {
        const now = form.querySelector(`#${was.id}`);
        if (!now) continue;
        if (was.type === 'checkbox') now.checked = was.checked;
        else now.value = was.value;
      }
    }
    const list = events === null
      ? h('p', { class: 'muted' }, '…')
      : events.length
        ? h('ul', { class: 'games' }, events.map((e) => h('li', { class: 'game-row' },
          h('a', { href: recall(`jieqi.t.${e.id}`, e.url), class: 'players' }, e.name),
          h('span', { class: 'info' }, e.settings ? formatText(e.settings) : e.format, ' · ', fill(t('tPlayersN'), { n: e.players }), ' · ', t(`tStatus_${e.status}`)))))
        : h('p', { class: 'muted' }, t('tNoEvents'));
    main.replaceChildren(h('div', { class: 'tournaments' }, form,
      h('section', { class: 'card', id: 't-list' }, h('h2', {}, t('tournaments')), list)));
    // Only the fields of the chosen format: a Swiss event has no bracket to size.
    const fmt = form.querySelector('#t-format');
    const showFields = () => {
      for (const l of form.querySelectorAll('label[data-for]')) l.hidden = !l.dataset.for.split(' ').includes(fmt.value);
    };
    fmt.addEventListener('change', showFields);
    showFields();
  }

  onLangChange(() => { if (main.querySelector('.tournaments')) draw(); });
  draw();
  api('GET', '/api/tournaments?limit=50').then((r) => { events = r.tournaments; draw(); }).catch(() => { events = []; draw(); });
}

/** The live page of event `id`; `token` is the organiser's or a player's (or null). */
export function showEvent(main, id, token) {
  let ev = null;
  let message = '';
  let controlsKey = '';
  let drawn = '';
  let timer = null;
  const verified = new Map();

  if (token) remember(`jieqi.t.${id}`, `${location.pathname}${location.search}`);
  const absolute = (path) => `${location.origin}${path}`;
  const name = (p) => (p === null || p === undefined ? '' : (ev.players[p] ? ev.players[p].name : '?'));

  async function act(path, body) {
    try {
      ev = await api('POST', `/api/tournaments/${id}/${path}`, { token, ...body });
      message = '';
    } catch (e) {
      message = `${t('error')}: ${e.message}`;
    }
    controlsKey = '';
    draw();
  }

  /** The round's options from the organiser card: deal mode and organiser deals. */
  function organiserDeals() {
    const out = {};
    const mode = main.querySelector('#t-round-deal-mode');
    if (mode && mode.value) out.deal_mode = mode.value;
    const ta = main.querySelector('#t-deals');
    const deals = ta ? ta.value.split('\n').map((s) => s.trim()).filter(Boolean) : [];
    if (deals.length) out.deals = deals;
    return out;
  }

  function controls() {
    const you = ev.you;
    if (you && you.role === 'organiser') {
      const orgDeals = ev.settings.deal_mode === 'organiser';
      return h('section', { class: 'card t-organiser', id: 't-organiser' },
        h('h2', {}, t('tOrganiser')),
        h('p', {}, t('tJoinLink'), ' ', h('code', { id: 't-join-link' }, absolute(you.join_url))),
        h('p', { class: 'muted' }, t('tOrgLink'), ' ', h('code', {}, absolute(`/t/${id}?org=${token}`))),
        ev.status !== 'finished' ? h('label', { class: 'deals' }, t('tRoundDeals'),
          sel('t-round-deal-mode', [['', `${t('tEventDefault')} (${t(`dm_${ev.settings.deal_mode}`)})`], ...DEAL_MODES.map((x) => [x, t(`dm_${x}`)])], '')) : null,
        h('label', { class: `deals${orgDeals ? '' : ' hidden'}`, id: 't-deals-box' }, t('tDeals'), h('textarea', { id: 't-deals', rows: 3, cols: 40 })),
        h('div', { class: 'buttons' },
          !ev.started ? h('button', { type: 'button', id: 't-start', class: 'primary', onclick: () => act('start', organiserDeals()) }, t('tStart')) : null,
          ev.started && ev.can_pair ? h('button', { type: 'button', id: 't-pair', class: 'primary', onclick: () => act('pair', organiserDeals()) }, t('tPair')) : null,
          ev.can_unpair ? h('button', { type: 'button', id: 't-unpair', onclick: () => act('unpair', {}) }, t('tUnpair')) : null,
        ));
    }
    if (you && you.role === 'player') {
      return h('section', { class: 'card t-you', id: 't-you' },
        h('h2', {}, `${t('tYourGames')} · ${you.name}`),
        h('p', { class: 'muted' }, t('tJoined'), ' ', h('code', {}, absolute(`/t/${id}?player=${token}`))),
        you.contribute.filter((c) => !c.given).map((c) => h('form', { class: 'contribute', onsubmit: (e) => {
          e.preventDefault();
          act('contribute', { round: c.round, board: c.board, secret: e.target.querySelector('input').value });
        } }, `${fill(t('tRound'), { n: c.round })} · ${t('tContribute')} `, h('input', { maxlength: 200, required: true, value: randomSecret() }), ' ',
        h('button', { type: 'submit' }, t('tSend')))),
        you.games.length
          ? h('ul', { class: 'games', id: 't-your-games' }, you.games.map((g) => h('li', { class: 'game-row' },
            h('span', { class: 'players' }, fill(t('tRound'), { n: g.round }), ' · ', t('tBoard'), ' ', g.board),
            h('span', { class: g.color === 'red' ? 'red-name' : 'black-name' }, t(g.color)),
            h('span', { class: 'info' }, t('tOpponent'), ' ', name(g.opponent)),
            g.result ? h('span', { class: 'result' }, resultShort(g.result))
              : g.url ? h('a', { href: g.url, class: 'button primary play', onclick: () => rememberSeat(g.game, g.url) }, t('tPlay')) : h('span', { class: 'muted' }, '…'))))
          : h('p', { class: 'muted' }, t('noGames')));
    }
    if (ev.status === 'registering') {
      return h('form', { class: 'card t-join', id: 't-join', onsubmit: async (e) => {
        e.preventDefault();
        const f = e.target;
        const body = { name: f.querySelector('#t-player-name').value };
        const r = f.querySelector('#t-player-rating').value;
        if (r !== '') body.rating = Number(r);
        try {
          const res = await api('POST', `/api/tournaments/${id}/join`, body);
          remember(`jieqi.t.${id}`, res.url);
          location.href = res.url;
        } catch (err) {
          message = `${t('error')}: ${err.message}`;
          draw();
        }
      } },
      h('h2', {}, t('tJoin')),
      h('div', { class: 'fields' },
        h('label', {}, t('tYourName'), h('input', { id: 't-player-name', maxlength: 40, required: true })),
        h('label', {}, t('tRating'), h('input', { id: 't-player-rating', type: 'number', min: 0, max: 4000 }))),
      h('div', { class: 'buttons' }, h('button', { type: 'submit', id: 't-join-button', class: 'primary' }, t('tJoin'))));
    }
    return null;
  }

  function playersCard() {
    const org = ev.you && ev.you.role === 'organiser';
    const list = [...ev.players].sort((a, b) => (a.start || 0) - (b.start || 0));
    return h('section', { class: 'card', id: 't-players' },
      h('h2', {}, `${t('tPlayers')} (${ev.players.length})`),
      h('ol', { class: 't-players' }, list.map((p) => h('li', {},
        h('span', { class: 'pname' }, p.name), p.rating ? h('span', { class: 'muted' }, ` ${p.rating}`) : null,
        p.withdrawn ? h('span', { class: 'muted' }, ` (${t('tWithdrawn')})`) : null,
        org && !p.withdrawn && ev.status !== 'finished'
          ? h('button', { type: 'button', class: 'small', onclick: () => act('remove', { player: p.id }) }, ev.started ? t('tWithdraw') : t('tRemove'))
          : null))));
  }

  function dealLine(d) {
    if (d === null || d === undefined || !ev.deals[d]) return null;
    const rec = ev.deals[d];
    const parts = [h('span', { class: 'muted' }, `${t('tCommitment')} #${d + 1}: `), h('code', {}, rec.commitment || '…')];
    if (rec.published && rec.deal) {
      const key = `${rec.deal}:${rec.salt}`;
      if (!verified.has(key)) {
        verified.set(key, null);
        verifyCommitment(rec.deal, rec.salt, rec.commitment).then((ok) => { verified.set(key, ok); draw(); });
      }
      const ok = verified.get(key);
      parts.push(h('br'), h('span', { class: 'muted' }, `${t('tDealPublished')}: `), h('code', { class: 'deal' }, rec.deal),
        ' ', ok === null ? '' : h('span', { class: ok ? 'ok' : 'error' }, ok ? t('tVerified') : t('tVerifyFailed')));
    }
    return h('div', { class: 't-deal' }, parts);
  }

  function roundsCard() {
    if (!ev.rounds.length) return null;
    const org = ev.you && ev.you.role === 'organiser';
    const rounds = [...ev.rounds].reverse();
    return h('section', { class: 'card', id: 't-rounds' }, rounds.map((r) => {
      const deals = [...new Set(r.boards.map((b) => b.deal))];
      const stage = r.phase.kind === 'knockout' && ev.bracket ? ev.bracket.stages[r.phase.stage - 1] : null;
      const phase = r.name && r.phase.kind === 'knockout' ? ` · ${r.name[currentLang()] || r.name.en}` : stage ? ` · ${stageName(stage)}` : '';
      return h('div', { class: 't-round', dataset: { round: r.round } },
        h('h3', {}, fill(t('tRound'), { n: r.round }), phase, ' · ', t(`dm_${r.deal_mode}`)),
        h('table', { class: 't-table' },
          h('thead', {}, h('tr', {}, h('th', {}, t('tBoard')), h('th', {}, t('red')), h('th', {}, t('black')), h('th', {}, t('tResult')), h('th', {}, ''))),
          h('tbody', {}, r.boards.map((b) => h('tr', { dataset: { board: b.board } },
            h('td', {}, b.knockout ? `${b.board} (${fill(t('tGame'), { n: b.knockout.game })})` : b.board),
            h('td', { class: 'red-name' }, name(b.red)),
            h('td', { class: 'black-name' }, name(b.black)),
            h('td', { class: 'result' }, resultShort(b.result),
              org ? h('span', { class: 'set-result' }, ' ', sel(`res-${r.round}-${b.board}`, [['', '…'], ...RESULTS.map((x) => [x, x])], ''),
                h('button', { type: 'button', class: 'small', onclick: (e) => {
                  const v = e.target.previousSibling.value;
                  if (v) act('result', { round: r.round, board: b.board, result: v });
                } }, t('tSet'))) : null),
            h('td', {}, b.game
              ? (b.private ? h('span', { class: 'muted private' }, t('tPrivate'))
                : h('a', { href: b.result ? `/replay/${b.game}` : `/game/${b.game}`, class: 'watch' }, b.result ? t('replay') : t('tWatch')))
              : '…'))))),
        r.bye !== null && r.bye !== undefined ? h('p', { class: 'muted' }, fill(t('tBye'), { p: name(r.bye) })) : null,
        deals.map(dealLine));
    }));
  }

  function standingsCard() {
    const tableRounds = ev.rounds.filter((r) => r.phase.kind !== 'knockout').length;
    if (!ev.standings.length || !ev.started || !tableRounds) return null;
    // The crosstable refers to its rows by number: shared ranks ("1=") would be ambiguous.
    const rankOf = new Map(ev.standings.map((s, i) => [s.player, i + 1]));
    const crossRows = ev.standings.map((s) => {
      const entries = (ev.crosstable.find((c) => c.player === s.player) || { entries: [] }).entries;
      const cells = [];
      for (let i = 1; i <= tableRounds; i++) {
        const en = entries.find((x) => x.round === i);
        let text = '';
        if (en) {
          const res = en.half_points === null || en.half_points === undefined ? '' : pts(en.half_points / 2);
          if (en.opponent === null || en.opponent === undefined) text = `+ ${res}`;
          else text = `${rankOf.get(en.opponent) || '?'}${en.colour === 'red' ? (currentLang() === 'zh' ? '红' : 'r') : (currentLang() === 'zh' ? '黑' : 'b')} ${res}`;
        }
        cells.push(h('td', { class: 'cross' }, text));
      }
      return h('tr', {}, h('td', {}, rankOf.get(s.player)), h('td', {}, name(s.player)), cells, h('td', { class: 'points' }, pts(s.points)));
    });
    return [
      h('section', { class: 'card', id: 't-standings' },
        h('h2', {}, t('tStandings')),
        h('table', { class: 't-table' },
          h('thead', {}, h('tr', {}, h('th', {}, t('tRank')), h('th', {}, t('tYourName')), h('th', {}, t('tPoints')), ev.tiebreaks.map((x) => h('th', { class: 'tb', title: tbText(x), dataset: { tb: x } }, tbShort(x))))),
          h('tbody', {}, ev.standings.map((s) => h('tr', { dataset: { player: s.player } },
            h('td', {}, `${s.rank}${s.shared ? '=' : ''}`), h('td', { class: 'pname' }, name(s.player)),
            h('td', { class: 'points' }, pts(s.points)), s.tiebreaks.map((x) => h('td', {}, x === null ? '' : pts(x))))))),
        ev.tiebreaks.length ? h('p', { class: 'muted t-legend', id: 't-legend' }, ev.tiebreaks.map((x) => h('span', { class: 'tb-legend' }, h('b', {}, tbShort(x)), ` ${tbText(x)}`))) : null),
      tableRounds ? h('section', { class: 'card', id: 't-crosstable' },
        h('h2', {}, t('tCrosstable')),
        h('table', { class: 't-table' },
          h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, ''), Array.from({ length: tableRounds }, (_, i) => h('th', {}, String(i + 1))), h('th', {}, t('tPoints')))),
          h('tbody', {}, crossRows))) : null,
    ];
  }

  function bracketCard() {
    if (!ev.bracket) return null;
    return h('section', { class: 'card', id: 't-bracket' },
      h('h2', {}, t('tBracket')),
      h('div', { class: 't-bracket' }, ev.bracket.stages.map((st) => h('div', { class: 't-stage' },
        h('h3', {}, stageName(st)),
        st.matches.map((m) => h('div', { class: `t-match ${m.kind}` },
          m.kind === 'third-place' ? h('div', { class: 'muted' }, t('tThird')) : null,
          h('div', { class: m.winner === m.high ? 'winner' : '' }, `(${m.high_seed}) ${name(m.high)}`, h('span', { class: 'score' }, pts(m.score[0]))),
          h('div', { class: m.low !== null && m.winner === m.low ? 'winner' : '' }, m.low === null ? '—' : `(${m.low_seed}) ${name(m.low)}`,
            h('span', { class: 'score' }, m.low === null ? '' : pts(m.score[1]))),
          h('div', { class: 'games' }, m.games.map((g) => (g.id
            ? h('a', { href: g.result ? `/replay/${g.id}` : `/game/${g.id}` }, `${fill(t('tGame'), { n: g.game })} ${resultShort(g.result)}`)
            : h('span', {}, fill(t('tGame'), { n: g.game })))))))))));
  }

  function placesCard() {
    if (!ev.places.length || !(ev.finished || ev.bracket)) return null;
    return h('section', { class: 'card', id: 't-places' }, h('h2', {}, t('tPlaces')),
      h('ul', { class: 't-places' }, ev.places.map((p) => h('li', { dataset: { place: p.place === null ? '' : p.place } },
        h('span', { class: 'place' }, placeText(p.place, ev.places)), ' ', name(p.player), ' ',
        h('span', { class: 'muted how' }, howText(p.how))))));
  }

  function draw() {
    if (!ev) return;
    const key = `${ev.status}|${ev.can_pair}|${ev.can_unpair}|${ev.you ? ev.you.role : ''}|${JSON.stringify(ev.you)}|${currentLang()}`;
    const head = h('header', { class: 't-head', id: 't-head' },
      h('h1', {}, ev.name),
      h('p', {}, h('span', { class: `t-status ${ev.status}`, id: 't-status' }, t(`tStatus_${ev.status}`)), ' · ', formatText(ev.settings), ' · ',
        t(`dm_${ev.settings.deal_mode}`), ' · ', t('time'), ' ', ev.time === 'none' ? t('none') : ev.time, ' · ',
        h('a', { href: `/api/tournaments/${id}/export?format=html`, target: '_blank' }, t('tExport'))),
      message ? h('p', { class: 'error', id: 't-error' }, message) : null);
    let page = main.querySelector('.t-event');
    if (!page) {
      page = h('div', { class: 't-event' }, h('div', { id: 't-head-box' }), h('div', { id: 't-controls' }), h('div', { id: 't-data' }));
      main.replaceChildren(page);
      controlsKey = '';
      drawn = '';
    }
    page.querySelector('#t-head-box').replaceChildren(head);
    // The forms are rebuilt only when they change, so typing is not lost; the data only
    // when it changed, so an open menu is not closed under the pointer.
    if (key !== controlsKey) {
      const c = controls();
      page.querySelector('#t-controls').replaceChildren(...(c ? [c] : []));
      const mode = page.querySelector('#t-round-deal-mode');
      if (mode) {
        mode.addEventListener('change', () => {
          const org = mode.value === 'organiser' || (mode.value === '' && ev.settings.deal_mode === 'organiser');
          page.querySelector('#t-deals-box').classList.toggle('hidden', !org);
        });
      }
      controlsKey = key;
    }
    const data = `${JSON.stringify(ev)}|${currentLang()}|${[...verified.values()].join()}`;
    if (data !== drawn) {
      drawn = data;
      const body = [bracketCard(), roundsCard(), standingsCard(), placesCard(), playersCard()].flat().filter(Boolean);
      page.querySelector('#t-data').replaceChildren(...body);
    }
  }

  async function refresh() {
    try {
      ev = await api('GET', `/api/tournaments/${id}${token ? `?token=${encodeURIComponent(token)}` : ''}`);
      draw();
    } catch (e) {
      if (!ev && e.code === 'no_tournament') {
        clearInterval(timer);
        showNotFound(main, 'event');
      } else if (!ev) main.replaceChildren(h('p', { class: 'error' }, `${t('error')}: ${e.message}`), h('a', { href: '/t' }, t('tournaments')));
    }
  }

  onLangChange(() => { controlsKey = ''; draw(); });
  refresh();
  timer = setInterval(() => {
    if (!main.querySelector('.t-event') && ev) clearInterval(timer);
    else if (!document.hidden) refresh();
  }, 3000);
}
