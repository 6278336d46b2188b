// Small helpers shared by the pages: DOM building, the HTTP API, clocks, SHA-256.

import { t, onLangChange } from './i18n.js';

/** Build an element: `h('div', {class: 'x', onclick: f}, child, 'text', …)`. */
export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else if (v === true) e.setAttribute(k, '');
    else e.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
  return e;
}

/** An error answered by the server's HTTP API (`{error: {code, message}}`). */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The CSRF token the server set in the `jieqi_csrf` cookie (docs/server.md, "Accounts"). */
function csrfToken() {
  const m = document.cookie.match(/(?:^|;\s*)jieqi_csrf=([0-9a-f]{32})/);
  return m ? m[1] : '';
}

/** Call the HTTP API; resolves to the JSON body or rejects with an ApiError. State-changing
 *  requests repeat the CSRF cookie in the `X-CSRF-Token` header. */
export async function api(method, path, body) {
  const init = { method, headers: {} };
  if (method !== 'GET' && method !== 'HEAD') init.headers['x-csrf-token'] = csrfToken();
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, 'network', String(e));
  }
  let data = null;
  try {
    data = await res.json();
  } catch (_) {
    data = null;
  }
  if (!res.ok) {
    const err = (data && data.error) || {};
    throw new ApiError(res.status, err.code || `http_${res.status}`, err.message || res.statusText);
  }
  return data;
}

/** Clock text: `m:ss`, `h:mm:ss` past an hour, tenths under ten seconds. */
export function fmtClock(ms) {
  if (ms === null || ms === undefined) return '—';
  const v = Math.max(0, ms);
  if (v < 10000) return `0:0${(Math.floor(v / 100) / 10).toFixed(1)}`;
  const total = Math.ceil(v / 1000);
  const s = total % 60;
  const m = Math.floor(total / 60) % 60;
  const hr = Math.floor(total / 3600);
  const ss = String(s).padStart(2, '0');
  return hr ? `${hr}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

// SHA-256 (FIPS 180-4) for pages served over plain HTTP to another host, where
// browsers hide crypto.subtle (it needs a secure context).
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** SHA-256 of bytes in plain JavaScript, as a Uint8Array. */
export function sha256Fallback(bytes) {
  const bitLen = bytes.length * 8;
  const padded = new Uint8Array(((bytes.length + 9 + 63) >> 6) << 6);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bitLen / 0x100000000));
  view.setUint32(padded.length - 4, bitLen >>> 0);
  const hs = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = hs;
    for (let i = 0; i < 64; i++) {
      const S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const ch = (e & f) ^ (~e & g);
      const t1 = (hh + S1 + ch + K[i] + w[i]) >>> 0;
      const S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    const add = [a, b, c, d, e, f, g, hh];
    for (let i = 0; i < 8; i++) hs[i] = (hs[i] + add[i]) >>> 0;
  }
  const out = new Uint8Array(32);
  const ov = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) ov.setUint32(i * 4, hs[i]);
  return out;
}

/** Hex SHA-256 of a text's UTF-8 bytes: WebCrypto when available, else the fallback. */
export async function sha256Hex(text) {
  const bytes = new TextEncoder().encode(text);
  let digest;
  if (globalThis.crypto && crypto.subtle && crypto.subtle.digest) {
    digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  } else {
    digest = sha256Fallback(bytes);
  }
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Whether `commitment` (`sha256:…`) is SHA-256 of `DEAL:SALT` (docs/protocol.md §4). */
export async function verifyCommitment(deal, salt, commitment) {
  if (!deal || !salt || !commitment) return false;
  const hex = await sha256Hex(`${deal}:${salt}`);
  return `sha256:${hex}` === commitment.trim().toLowerCase();
}

/** Remember something small in localStorage; storage errors are ignored. */
export function remember(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch (_) {
    // Private mode or full storage: the setting lasts for this page only.
  }
}

/** Read something remembered, or `fallback`. */
export function recall(key, fallback) {
  try {
    const v = localStorage.getItem(key);
    return v === null ? fallback : v;
  } catch (_) {
    return fallback;
  }
}

const MINE_KEY = 'jieqi.mygames';

/** Remember a seat link of ours (so the lobby can lead back to an unfinished game). */
export function rememberSeat(id, url) {
  const mine = myGames().filter((g) => g.id !== id);
  mine.unshift({ id, url, at: Date.now() });
  remember(MINE_KEY, JSON.stringify(mine.slice(0, 20)));
}

/** Our remembered seats, newest first: `[{id, url, at}]`. */
export function myGames() {
  try {
    const list = JSON.parse(recall(MINE_KEY, '[]'));
    return Array.isArray(list) ? list.filter((g) => g && typeof g.id === 'string' && typeof g.url === 'string') : [];
  } catch (_) {
    return [];
  }
}

/** The not-found page: what was not found (`page`, `game` or `event`), in the chosen
 * language, with a link home. The server answers such addresses with status 404. */
export function showNotFound(main, what = 'page') {
  const key = what === 'game' ? 'notFoundGame' : what === 'event' ? 'notFoundEvent' : 'notFoundTitle';
  const draw = () => {
    const shown = main.querySelector('#not-found');
    if (main.childElementCount && !shown) return; // the page moved on
    main.replaceChildren(h('div', { class: 'card error-page not-found', id: 'not-found', dataset: { what } },
      h('h1', {}, '404'),
      h('p', { class: 'error' }, t(key)),
      h('p', {}, h('a', { href: '/', class: 'button primary', id: 'not-found-home' }, t('notFoundHome')))));
  };
  main.replaceChildren();
  draw();
  onLangChange(draw);
}
