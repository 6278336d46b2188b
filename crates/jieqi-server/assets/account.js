// Accounts in the page: who is logged in, the login / sign-up page, the names of the
// seats, and the profile page of a player (`/@/{name}`: ratings, rating graph, results,
// games). docs/protocol.md §7.

import { t, onLangChange, resultText } from './i18n.js';
import { h, api } from './util.js';

let me = null;

/** The logged-in user (`{name}`) or null; asked of the server once per page. */
export function currentUser() {
  if (!me) me = api('GET', '/api/account').then((r) => r.user).catch(() => null);
  return me;
}

/** How a seat is named: the account's name, the engine's level, or "Anonymous". */
export function seatName(seat) {
  if (!seat) return '?';
  if (seat.kind === 'engine') return `${t('engine')} L${seat.level}`;
  if (seat.name) return seat.name;
  return seat.joined === false ? '…' : t('anonymous');
}

/** A link to a seat's profile, or its plain name. */
export function seatLink(seat, attrs = {}) {
  return seat && seat.kind === 'human' && seat.name
    ? h('a', { href: `/@/${seat.name}`, class: 'user-link', ...attrs }, seat.name)
    : h('span', attrs, seatName(seat));
}

/** Fill the header's account corner: the profile link and "log out", or "log in". */
export async function accountHeader(box) {
  const user = await currentUser();
  const draw = () => {
    if (user) {
      box.replaceChildren(
        h('a', { href: `/@/${user.name}`, id: 'nav-me', class: 'nav' }, user.name),
        ' ',
        h('button', { type: 'button', id: 'logout', class: 'link', onclick: async () => {
          await api('POST', '/api/account/logout').catch(() => null);
          location.href = '/';
        } }, t('logout')));
    } else {
      box.replaceChildren(h('a', { href: '/login', id: 'nav-login', class: 'nav' }, t('login')));
    }
  };
  onLangChange(draw);
  draw();
}

/** The login / sign-up page. */
export function showLogin(main) {
  let signup = new URLSearchParams(location.search).get('signup') === '1';
  let message = '';
  async function submit(e) {
    e.preventDefault();
    const form = main.querySelector('form.account');
    const body = { name: form.querySelector('#user-name').value.trim(), password: form.querySelector('#password').value };
    try {
      const res = await api('POST', signup ? '/api/account/signup' : '/api/account/login', body);
      location.href = `/@/${res.user.name}`;
    } catch (err) {
      message = err.message;
      draw();
    }
  }
  function draw() {
    main.replaceChildren(h('form', { class: 'card account', onsubmit: submit },
      h('h2', {}, signup ? t('signup') : t('login')),
      h('div', { class: 'fields' },
        h('label', {}, t('userName'), h('input', { id: 'user-name', name: 'username', autocomplete: 'username', maxlength: 20, required: true })),
        h('label', {}, t('password'), h('input', { id: 'password', name: 'password', type: 'password', autocomplete: signup ? 'new-password' : 'current-password', required: true }))),
      signup ? h('p', { class: 'muted' }, t('nameRules')) : null,
      h('div', { class: 'buttons' },
        h('button', { type: 'submit', id: 'account-submit', class: 'primary' }, signup ? t('signup') : t('login')),
        h('button', { type: 'button', id: 'account-switch', class: 'link-button', onclick: () => { signup = !signup; message = ''; draw(); } },
          signup ? t('haveAccount') : t('noAccount'))),
      message ? h('p', { class: 'error', id: 'account-error' }, message) : null));
  }
  onLangChange(() => { if (main.querySelector('form.account')) draw(); });
  draw();
}

const CATEGORY_COLORS = { bullet: '#c0392b', blitz: '#d68910', rapid: '#1e8449', classical: '#2e86c1' };

/** A rating as shown: `1523`, or `1523?` while provisional. */
export function ratingText(r) {
  return `${r.rating}${r.provisional ? '?' : ''}`;
}

/** The rating graph: one line per category over the rated games, in inline SVG. */
function ratingGraph(history) {
  const W = 600, H = 200, P = 30;
  const svgNs = 'http://www.w3.org/2000/svg';
  const el = (tag, attrs, text) => {
    const e = document.createElementNS(svgNs, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'rating-graph', id: 'rating-graph', role: 'img' });
  if (!history.length) return h('p', { class: 'muted', id: 'rating-graph' }, t('noRatedGames'));
  const ratings = history.map((p) => p.rating);
  const lo = Math.min(...ratings) - 20, hi = Math.max(...ratings) + 20;
  const t0 = history[0].at_ms, t1 = history[history.length - 1].at_ms;
  const x = (ms) => (t1 === t0 ? W / 2 : P + ((ms - t0) / (t1 - t0)) * (W - 2 * P));
  const y = (r) => H - P - ((r - lo) / (hi - lo)) * (H - 2 * P);
  svg.appendChild(el('line', { x1: P, y1: H - P, x2: W - P, y2: H - P, stroke: '#888' }));
  svg.appendChild(el('text', { x: 2, y: y(hi - 20) + 4, 'font-size': 11, fill: '#555' }, String(hi - 20)));
  svg.appendChild(el('text', { x: 2, y: y(lo + 20) + 4, 'font-size': 11, fill: '#555' }, String(lo + 20)));
  for (const [cat, color] of Object.entries(CATEGORY_COLORS)) {
    const pts = history.filter((p) => p.category === cat);
    if (!pts.length) continue;
    svg.appendChild(el('polyline', { points: pts.map((p) => `${x(p.at_ms)},${y(p.rating)}`).join(' '), fill: 'none', stroke: color, 'stroke-width': 2, class: `line-${cat}` }));
    for (const p of pts) {
      const dot = el('circle', { cx: x(p.at_ms), cy: y(p.rating), r: 3, fill: color });
      dot.appendChild(el('title', {}, `${t(cat)} ${p.rating} · ${new Date(p.at_ms).toLocaleDateString()}`));
      svg.appendChild(dot);
    }
  }
  return svg;
}

/** The profile page of player `name`. */
export function showProfile(main, name) {
  let profile = null;
  let games = null;
  let error = '';
  const filter = { result: '', opponent: '', from: '', to: '', page: 1 };

  async function loadGames() {
    const q = new URLSearchParams();
    for (const k of ['result', 'opponent', 'from', 'to']) if (filter[k]) q.set(k, filter[k]);
    q.set('page', String(filter.page));
    try {
      games = await api('GET', `/api/users/${encodeURIComponent(name)}/games?${q}`);
      error = '';
    } catch (e) {
      error = e.message;
    }
    draw();
  }

  function gamesSection() {
    const f = h('form', { class: 'filters', id: 'game-filters', onsubmit: (e) => {
      e.preventDefault();
      const form = e.target;
      for (const k of ['result', 'opponent', 'from', 'to']) filter[k] = form.querySelector(`[name=${k}]`).value.trim();
      filter.page = 1;
      loadGames();
    } },
      h('label', {}, t('result'), (() => {
        const s = h('select', { name: 'result' });
        for (const [v, label] of [['', t('all')], ['win', t('wins')], ['draw', t('draws')], ['loss', t('losses')]]) s.appendChild(h('option', { value: v, selected: v === filter.result }, label));
        return s;
      })()),
      h('label', {}, t('opponent'), h('input', { name: 'opponent', value: filter.opponent, maxlength: 20 })),
      h('label', {}, t('from'), h('input', { name: 'from', type: 'date', value: filter.from })),
      h('label', {}, t('to'), h('input', { name: 'to', type: 'date', value: filter.to })),
      h('button', { type: 'submit', id: 'filter-games' }, t('filter')));
    const rows = games ? games.games.map((g) => {
      const opp = g.color === 'red' ? g.black : g.red;
      const change = g.rating_after !== null && g.rating_before !== null ? g.rating_after - g.rating_before : null;
      return h('li', { class: `game-row history ${g.result_for_player}`, dataset: { id: g.id } },
        h('span', { class: 'when' }, new Date(g.updated_ms).toLocaleDateString()),
        h('span', { class: 'players' }, t(g.color), ' ', t('vs'), ' ', seatLink(opp, { class: 'opponent' })),
        h('span', { class: 'info' }, `${g.category ? t(g.category) : t('none')} · ${g.time} · ${g.rated ? t('rated') : t('casual')}`),
        h('span', { class: 'outcome' }, g.result_for_player === 'aborted' ? resultText(g.result, g.reason)
          : `${t(g.result_for_player === 'win' ? 'won' : g.result_for_player === 'loss' ? 'lost' : 'drew')} · ${resultText(g.result, g.reason)}`),
        change === null ? null : h('span', { class: 'rating-change' }, `${g.rating_after} (${change >= 0 ? '+' : ''}${change})`),
        h('a', { href: `/replay/${g.id}`, class: 'button replay' }, t('replay')));
    }) : [];
    const pager = games && games.pages > 1 ? h('div', { class: 'pager' },
      h('button', { type: 'button', id: 'prev-page', disabled: filter.page <= 1, onclick: () => { filter.page -= 1; loadGames(); } }, '◀'),
      h('span', {}, ` ${games.page} / ${games.pages} `),
      h('button', { type: 'button', id: 'next-page', disabled: filter.page >= games.pages, onclick: () => { filter.page += 1; loadGames(); } }, '▶')) : null;
    return h('section', { class: 'card', id: 'profile-games' },
      h('h2', {}, t('gamesOf'), games ? ` (${games.total})` : ''),
      f,
      games === null ? h('p', { class: 'muted' }, '…')
        : rows.length ? h('ul', { class: 'games', id: 'history' }, rows) : h('p', { class: 'muted' }, t('noGames')),
      pager);
  }

  function draw() {
    if (error && !profile) {
      main.replaceChildren(h('p', { class: 'error', id: 'profile-error' }, error));
      return;
    }
    if (!profile) return;
    const ratings = h('table', { class: 'ratings', id: 'ratings' },
      h('tr', {}, h('th', {}, t('category')), h('th', {}, t('rating')), h('th', {}, t('ratedGames'))),
      profile.ratings.map((r) => h('tr', { dataset: { category: r.category } },
        h('td', {}, t(r.category)),
        h('td', { class: 'rating', title: `± ${r.deviation}` }, ratingText(r)),
        h('td', {}, String(r.games)))));
    const results = h('table', { class: 'results', id: 'results' },
      h('tr', {}, h('th', {}, t('category')), h('th', {}, ''), h('th', {}, t('wins')), h('th', {}, t('draws')), h('th', {}, t('losses'))),
      profile.results.map((r) => h('tr', {},
        h('td', {}, r.category ? t(r.category) : t('none')),
        h('td', {}, r.rated ? t('rated') : t('casual')),
        h('td', {}, String(r.wins)), h('td', {}, String(r.draws)), h('td', {}, String(r.losses)))));
    main.replaceChildren(h('div', { class: 'profile', id: 'profile', dataset: { name: profile.name } },
      h('h1', { id: 'profile-name' }, profile.name),
      h('section', { class: 'card' }, h('h2', {}, t('ratings')), ratings, h('p', { class: 'muted' }, t('provisionalNote'))),
      h('section', { class: 'card' }, h('h2', {}, t('ratingGraph')), ratingGraph(profile.rating_history)),
      h('section', { class: 'card' }, h('h2', {}, t('resultsByCategory')), profile.results.length ? results : h('p', { class: 'muted' }, t('noGames'))),
      gamesSection(),
      error ? h('p', { class: 'error' }, error) : null));
  }

  onLangChange(() => { if (main.querySelector('#profile')) draw(); });
  main.replaceChildren(h('p', { class: 'loading' }, '…'));
  api('GET', `/api/users/${encodeURIComponent(name)}`).then((p) => {
    profile = p;
    draw();
    loadGames();
  }).catch((e) => {
    error = e.message;
    draw();
  });
}
