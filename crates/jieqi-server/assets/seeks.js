// Quick pairing in the lobby (docs/web.md, "Lobby"; docs/protocol.md §8): time-control
// tiles, a custom seek form and the live seek list, over the lobby socket `/ws/lobby`.
// A click on a tile seeks that time control; when the server pairs us it sends our
// seat link and the page goes there.

import { t, addStrings, onLangChange } from './i18n.js';
import { h, recall, remember, rememberSeat } from './util.js';
import { ratingText } from './account.js';

addStrings({
  zh: {
    quickPairing: '快速配对',
    customSeek: '自定义约战',
    createSeek: '发起约战',
    seekList: '约战列表',
    noSeeks: '暂无约战：点一个时限，或发起约战',
    waitingOpponent: '等待对手…',
    cancel: '取消',
    accept: '应战',
    ratingRange: '等级分范围',
    anyRating: '不限',
    player: '棋手',
    lobbyOffline: '大厅连接已断开，正在重连…',
    seekNeedsLogin: '登录后才能应这个约战',
  },
  en: {
    quickPairing: 'Quick pairing',
    customSeek: 'Custom seek',
    createSeek: 'Create seek',
    seekList: 'Seeks',
    noSeeks: 'No seeks: click a time control, or create a seek',
    waitingOpponent: 'waiting…',
    cancel: 'Cancel',
    accept: 'Accept',
    ratingRange: 'Rating range',
    anyRating: 'any',
    player: 'Player',
    lobbyOffline: 'Lobby connection lost, reconnecting…',
    seekNeedsLogin: 'Log in to accept this seek',
  },
});

/** The tiles: game time 局时 `M+S` and step time 步时 in seconds ('' for none). */
export const TILES = [
  ['1+0', ''], ['3+0', ''], ['3+2', ''], ['5+3', ''],
  ['10+0', ''], ['10+5', ''], ['15+10', ''], ['30+0', ''],
  ['30+20', ''], ['5+0', '30'], ['10+0', '60'], ['20+0', '60'],
];
const SEEK_TIMES = ['1+0', '3+0', '3+2', '5+0', '5+3', '10+0', '10+5', '15+10', '20+0', '30+0', '30+20'];
const SEEK_MOVE_TIMES = ['', '30', '60', '120'];
const RANGES = ['', '100', '200', '300', '500'];

/** The rating category of `M+S` (docs/server.md, "Ratings": minutes × 60 + 40 × increment). */
export function categoryOf(time) {
  const [m, s] = time.split('+').map(Number);
  const estimate = m * 60 + 40 * (s || 0);
  if (estimate < 180) return 'bullet';
  if (estimate < 480) return 'blitz';
  if (estimate < 1500) return 'rapid';
  return 'classical';
}

function timeLabel(time, moveTime) {
  return moveTime ? `${time} · ${t('moveTime')} ${moveTime}${t('seconds')}` : time;
}

function select(id, options, value) {
  const s = h('select', { id, name: id });
  for (const [v, label] of options) s.appendChild(h('option', { value: v, selected: v === value }, label));
  return s;
}

/** The quick-pairing card. `el` goes into the lobby; `setUser` tells it who is logged in. */
export function quickPairing() {
  const el = h('section', { class: 'card quick-pairing', id: 'quick-pairing' });
  let user = null;
  let seeks = []; // the server's list, oldest first
  let pending = new Set(); // tile keys clicked, not answered yet
  let message = '';
  let ws = null;
  let online = false;
  let backoff = 500;
  let pingTimer = null;

  const key = (time, moveTime) => `${time}|${moveTime || ''}`;
  const seekKey = (s) => key(s.time, s.move_time ? String(s.move_time) : '');

  function send(type, d) {
    if (!ws || ws.readyState !== WebSocket.OPEN) {
      message = t('lobbyOffline');
      draw();
      return false;
    }
    ws.send(JSON.stringify({ t: type, d }));
    return true;
  }

  function connect() {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    ws = new WebSocket(`${proto}//${location.host}/ws/lobby`);
    ws.onopen = () => {
      online = true;
      backoff = 500;
      clearInterval(pingTimer);
      pingTimer = setInterval(() => send('ping', { ts: Date.now() }), 25000);
    };
    ws.onmessage = (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch (_) {
        return;
      }
      receive(msg);
    };
    ws.onclose = () => {
      online = false;
      clearInterval(pingTimer);
      pending = new Set();
      // Our seeks went with the connection; the next one brings the list afresh.
      if (!el.isConnected) return;
      setTimeout(connect, backoff);
      backoff = Math.min(backoff * 2, 8000);
      draw();
    };
  }

  function receive(msg) {
    const d = msg.d || {};
    switch (msg.t) {
      case 'seeks':
        seeks = d.seeks || [];
        message = '';
        break;
      case 'seek_added':
        seeks = seeks.filter((s) => s.id !== d.id).concat([d]);
        if (d.own) pending.delete(seekKey(d));
        break;
      case 'seek_removed':
        seeks = seeks.filter((s) => s.id !== d.id);
        break;
      case 'paired':
        rememberSeat(d.game, d.url);
        location.href = d.url;
        return;
      case 'error':
        pending = new Set();
        message = `${t('error')}: ${d.message}`;
        break;
      default:
        return;
    }
    draw();
  }

  function seek(time, moveTime, extra = {}) {
    const body = { time, move_time: moveTime ? Number(moveTime) : null, rated: Boolean(user), color: 'random', range: null, ...extra };
    message = '';
    if (send('seek', body)) pending.add(key(time, moveTime));
    draw();
  }

  function clickTile(time, moveTime) {
    const mine = seeks.filter((s) => s.own && seekKey(s) === key(time, moveTime));
    if (mine.length) {
      for (const s of mine) send('cancel', { id: s.id });
      return;
    }
    if (pending.has(key(time, moveTime))) return;
    seek(time, moveTime);
  }

  function tile([time, moveTime]) {
    const k = key(time, moveTime);
    const waiting = seeks.some((s) => s.own && seekKey(s) === k);
    const busy = pending.has(k);
    const cat = categoryOf(time);
    return h('div', { class: `tile-box${waiting ? ' waiting' : ''}`, dataset: { time, moveTime } },
      h('button', {
        type: 'button',
        class: 'tile',
        dataset: { time, moveTime, category: cat },
        disabled: busy,
        onclick: () => clickTile(time, moveTime),
      },
      h('span', { class: 'tc' }, time),
      moveTime ? h('span', { class: 'step' }, `${t('moveTime')} ${moveTime}${t('seconds')}`) : null,
      h('span', { class: 'cat' }, waiting ? t('waitingOpponent') : t(cat))),
      waiting ? h('button', { type: 'button', class: 'tile-cancel', onclick: () => clickTile(time, moveTime) }, `✕ ${t('cancel')}`) : null);
  }

  function customForm() {
    const form = h('form', { class: 'custom-seek', id: 'custom-seek', onsubmit: (e) => e.preventDefault() });
    const val = (id) => form.querySelector(`#${id}`).value;
    const fields = h('div', { class: 'fields' },
      h('label', {}, t('time'), select('seek-time', SEEK_TIMES.map((x) => [x, x]), recall('jieqi.seek.time', '10+5'))),
      h('label', {}, t('moveTime'), select('seek-move-time', SEEK_MOVE_TIMES.map((x) => [x, x === '' ? t('none') : `${x} ${t('seconds')}`]), recall('jieqi.seek.move_time', ''))),
      h('label', {}, t('color'), select('seek-color', [['random', t('random')], ['red', t('red')], ['black', t('black')]], recall('jieqi.seek.color', 'random'))),
      user ? h('label', {}, t('ratingRange'), select('seek-range', RANGES.map((x) => [x, x === '' ? t('anyRating') : `± ${x}`]), recall('jieqi.seek.range', ''))) : null,
    );
    const submit = () => {
      const rated = Boolean(user) && form.querySelector('#seek-rated').checked;
      const range = user ? val('seek-range') : '';
      remember('jieqi.seek.time', val('seek-time'));
      remember('jieqi.seek.move_time', val('seek-move-time'));
      remember('jieqi.seek.color', val('seek-color'));
      if (user) remember('jieqi.seek.range', range);
      seek(val('seek-time'), val('seek-move-time'), {
        rated,
        color: val('seek-color'),
        range: range === '' ? null : Number(range),
      });
    };
    form.append(fields, h('div', { class: 'buttons' },
      h('button', { type: 'button', id: 'create-seek', onclick: submit }, t('createSeek')),
      user ? h('label', { class: 'check' }, h('input', { type: 'checkbox', id: 'seek-rated', checked: true }), ' ', t('ratedGame')) : null));
    return form;
  }

  function seekRow(s) {
    const who = s.name
      ? h('a', { href: `/@/${s.name}`, class: 'user-link' }, s.name)
      : h('span', {}, t('anonymous'));
    const rating = s.rating === null ? '' : ratingText({ rating: s.rating, provisional: s.provisional });
    let action;
    if (s.own) {
      action = h('button', { type: 'button', class: 'cancel', onclick: () => send('cancel', { id: s.id }) }, t('cancel'));
    } else {
      const blocked = !user && (s.rated || s.range !== null);
      action = h('button', {
        type: 'button',
        class: 'accept primary',
        disabled: blocked,
        title: blocked ? t('seekNeedsLogin') : null,
        onclick: () => send('accept', { id: s.id }),
      }, t('accept'));
    }
    return h('tr', { class: `seek-row${s.own ? ' own' : ''}`, dataset: { id: s.id, time: s.time } },
      h('td', { class: 'who' }, who, rating ? h('span', { class: 'rating' }, ` ${rating}`) : null),
      h('td', { class: 'tc' }, timeLabel(s.time, s.move_time), ' · ', t(s.category)),
      h('td', { class: 'mode' }, s.rated ? h('span', { class: 'badge rated' }, t('rated')) : t('casual')),
      h('td', { class: 'side' }, t(s.color)),
      h('td', { class: 'range' }, s.range === null ? '' : `± ${s.range}`),
      h('td', {}, action));
  }

  // The custom form is built again only when the language or the user changes, so
  // that the list's updates do not undo a choice being made.
  let details = null;
  function buildForm() {
    const open = details ? details.open : false;
    details = h('details', { class: 'custom', open }, h('summary', {}, t('customSeek')), customForm());
  }

  function draw() {
    const list = seeks.length
      ? h('table', { class: 'seeks', id: 'seek-list' },
        h('thead', {}, h('tr', {},
          h('th', {}, t('player')), h('th', {}, t('time')), h('th', {}, ''), h('th', {}, t('color')), h('th', {}, t('ratingRange')), h('th', {}, ''))),
        h('tbody', {}, seeks.map(seekRow)))
      : h('p', { class: 'muted', id: 'seek-list' }, t('noSeeks'));
    el.dataset.online = String(online);
    const parts = [
      h('h2', {}, t('quickPairing')),
      h('div', { class: 'tiles' }, TILES.map(tile)),
      details,
      h('h3', {}, t('seekList')),
      list,
    ];
    if (message) parts.push(h('p', { class: 'error', id: 'seek-error' }, message));
    el.replaceChildren(...parts);
  }

  onLangChange(() => {
    buildForm();
    draw();
  });
  buildForm();
  draw();
  connect();
  return {
    el,
    setUser(u) {
      user = u;
      buildForm();
      draw();
    },
  };
}
