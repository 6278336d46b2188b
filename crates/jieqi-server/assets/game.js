// The game page: a live game over the WebSocket (docs/protocol.md §3), as a player or
// a spectator; reconnects and resyncs by version.

import { t, onLangChange, resultText, currentLang } from './i18n.js';
import { h, api, fmtClock, verifyCommitment, recall, remember, rememberSeat, myGames, showNotFound } from './util.js';
import { BoardView, miniPiece, dealMap, pieceLabel } from './board.js';
import { parseBoard, boardsBefore, chineseMove, wxfMove } from './notation.js';
import { seatName } from './account.js';
import { ChatPanel } from './chat.js';
import { prefs, onPrefsChange, boardTools } from './prefs.js';
import { playSound } from './sounds.js';
import { readMove } from './moveinput.js';

const ROLES = ['R', 'N', 'B', 'A', 'C', 'P'];
const STATE_CHANGES = new Set(['move', 'end', 'draw', 'rematch', 'takeback']);

/** The notation the move lists use: `zh`, `wxf` or `iccs`, remembered. */
export function notationMode() {
  const m = recall('jieqi.notation', 'zh');
  return m === 'wxf' || m === 'iccs' ? m : 'zh';
}

/** Text of each ply in the chosen notation (`zh` and `wxf` from the server when it
 * sends them; written here from the boards otherwise). */
export function moveTexts(startFen, plies, mode) {
  let boards;
  try {
    boards = boardsBefore(startFen, plies);
  } catch (_) {
    boards = null;
  }
  return plies.map((p, i) => {
    if (mode === 'iccs' || !boards) return p.uci;
    if (mode === 'zh') return p.zh || chineseMove(boards[i], p);
    return p.wxf || wxfMove(boards[i], p);
  });
}

/** The notation switch (中文 / WXF / ICCS). */
export function notationSwitch(onChange) {
  const mode = notationMode();
  const btn = (m, label) =>
    h('button', {
      type: 'button',
      class: `tab${m === mode ? ' on' : ''}`,
      dataset: { notation: m },
      onclick: () => {
        remember('jieqi.notation', m);
        onChange();
      },
    }, label);
  return h('div', { class: 'notation-switch' }, btn('zh', t('chinese')), btn('wxf', 'WXF'), btn('iccs', 'ICCS'));
}

/** The move list as a table of rounds; `current` (ply number) is highlighted. */
export function moveTable(texts, plies, current, onPick) {
  const rows = [];
  for (let i = 0; i < plies.length; i += 2) {
    const cell = (j) => {
      if (j >= plies.length) return h('td', {});
      const p = plies[j];
      return h('td', {
        class: `ply${p.n === current ? ' current' : ''}${p.check ? ' checks' : ''}`,
        dataset: { n: p.n },
        onclick: onPick ? () => onPick(p.n) : null,
      }, texts[j]);
    };
    rows.push(h('tr', {}, h('td', { class: 'num' }, `${i / 2 + 1}.`), cell(i), cell(i + 1)));
  }
  return h('table', { class: 'moves' }, h('tbody', {}, rows));
}

/** One side's pool (identities still face-down, as the viewer knows them). */
export function poolView(color, counts, knownCaptured) {
  const red = color === 'red';
  const items = ROLES.filter((r) => counts && counts[r]).map((r) =>
    h('span', { class: 'pool-item', dataset: { role: r } }, miniPiece(red ? r : r.toLowerCase(), 22), h('span', { class: 'count' }, `×${counts[r]}`)));
  const known = ROLES.filter((r) => knownCaptured && knownCaptured[r]).map((r) =>
    h('span', { class: 'pool-item known' }, miniPiece(red ? r : r.toLowerCase(), 18), `×${knownCaptured[r]}`));
  return h('div', { class: `pool ${color}`, dataset: { color } },
    h('span', { class: 'side-name' }, t(color)),
    h('span', { class: 'pool-items' }, items.length ? items : h('span', { class: 'muted' }, '—')),
    known.length ? h('span', { class: 'known-captured', title: t('knownCaptured') }, '（', known, '）') : null);
}

/** The probability of each identity of a face-down piece of `color`: pool count / total. */
export function identityOdds(counts) {
  const total = ROLES.reduce((s, r) => s + ((counts && counts[r]) || 0), 0);
  if (!total) return [];
  return ROLES.filter((r) => counts[r]).map((r) => ({ role: r, count: counts[r], p: counts[r] / total }));
}

/** The tooltip that tells what a hovered face-down piece may be. */
export function oddsTooltip(color, counts) {
  const red = color === 'red';
  const odds = identityOdds(counts);
  return h('div', { class: 'odds' },
    h('div', { class: 'odds-title' }, `${t(color)} ${t('faceDown')} · ${t('probability')}`),
    odds.map((o) => h('div', { class: 'odds-row', dataset: { role: o.role } },
      h('span', { class: `odds-char ${color}` }, pieceLabel(red ? o.role : o.role.toLowerCase())),
      h('span', { class: 'bar' }, h('span', { style: `width:${(o.p * 100).toFixed(1)}%` })),
      h('span', { class: 'pct' }, `${Math.round(o.p * 100)}%`),
      h('span', { class: 'frac muted' }, `${o.count}/${odds.reduce((s, x) => s + x.count, 0)}`))));
}

/** Captured pieces per side, from the plies (what each side has lost). */
export function capturedBySide(plies) {
  const lost = { red: [], black: [] };
  for (const p of plies) {
    if (!p.captured) continue;
    lost[p.color === 'red' ? 'black' : 'red'].push(p.captured);
  }
  return lost;
}

/** The pools after the first `n` plies, as the viewer knew them then: the start
 * position's pools less each reveal and each captured face-down piece whose identity
 * the viewer was told (those are counted in `known_captured`). */
export function poolsAfter(startFen, plies, n) {
  const field = startFen.trim().split(/\s+/)[2] || '-';
  const pools = { red: {}, black: {}, known_captured: { red: {}, black: {} } };
  for (const m of field === '-' ? [] : field.matchAll(/([A-Za-z])(\d+)/g)) {
    const color = m[1] === m[1].toUpperCase() ? 'red' : 'black';
    if (Number(m[2])) pools[color][m[1].toUpperCase()] = Number(m[2]);
  }
  const take = (counts, role) => {
    if (counts[role]) counts[role] -= 1;
    if (!counts[role]) delete counts[role];
  };
  let boards;
  try {
    boards = boardsBefore(startFen, plies.slice(0, n));
  } catch (_) {
    return pools;
  }
  for (let i = 0; i < n && i < plies.length; i++) {
    const p = plies[i];
    if (p.reveal) take(pools[p.color], p.reveal.toUpperCase());
    const victim = boards[i].get(p.to);
    const known = p.captured && p.captured !== 'X' && p.captured !== 'x';
    if (known && (victim === 'X' || victim === 'x')) {
      const them = p.color === 'red' ? 'black' : 'red';
      const role = p.captured.toUpperCase();
      take(pools[them], role);
      pools.known_captured[them][role] = (pools.known_captured[them][role] || 0) + 1;
    }
  }
  return pools;
}

/** The fair-deal box: commitment, and at the end the deal, the salt and our own check. */
export function commitmentBox(commitment, end) {
  const box = h('div', { class: 'commitment card' },
    h('div', {}, h('b', {}, `${t('commitment')}: `), h('code', { class: 'hash', id: 'commitment' }, commitment || '—')));
  if (end && end.withheld) {
    box.appendChild(h('div', { class: 'offer', id: 'deal-withheld' }, t('dealWithheld')));
  } else if (end && end.deal) {
    const status = h('span', { class: 'verify pending', id: 'verify' }, t('verifying'));
    box.appendChild(h('div', {}, h('b', {}, `${t('deal')}: `), h('code', { id: 'deal' }, end.deal)));
    box.appendChild(h('div', {}, h('b', {}, `${t('salt')}: `), h('code', { id: 'salt' }, end.salt)));
    box.appendChild(h('div', {}, 'SHA-256(deal:salt) → ', status));
    verifyCommitment(end.deal, end.salt, commitment || end.commitment).then((ok) => {
      status.className = `verify ${ok ? 'ok' : 'bad'}`;
      status.textContent = ok ? t('verified') : t('verifyFailed');
    });
  }
  return box;
}

function kingSquare(board, color) {
  const k = color === 'red' ? 'K' : 'k';
  for (const [sq, letter] of board) if (letter === k) return sq;
  return null;
}

/** The invite link `/game/ID?invite=TOKEN` of a friend game: claims the free seat with
 * the invite token (docs/protocol.md §2.2) and plays it on the seat's own link, which
 * replaces the invite link in the address bar (and is remembered for the lobby). A
 * browser that already holds a seat of this game goes back to it. */
export async function showInvite(main, id, invite) {
  const seatOf = (url) => new URL(url, location.origin).searchParams.get('seat');
  const play = (url) => {
    history.replaceState(null, '', url);
    return showGame(main, id, seatOf(url));
  };
  const mine = myGames().find((g) => g.id === id && seatOf(g.url));
  if (mine) return play(mine.url);
  try {
    const res = await api('POST', `/api/games/${id}/join`, { invite });
    rememberSeat(res.id, res.url);
    return play(res.url);
  } catch (e) {
    const text = e.code === 'seat_taken' ? t('inviteUsed')
      : e.code === 'bad_invite' ? t('badInvite') : `${t('error')}: ${e.message}`;
    main.replaceChildren(h('div', { class: 'card error-page' },
      h('p', { class: 'error', id: 'invite-error', dataset: { code: e.code } }, text),
      h('p', {}, h('a', { href: `/game/${id}`, class: 'button watch' }, t('watch')), ' ',
        h('a', { href: '/' }, t('backToLobby')))));
    return null;
  }
}

/** Show the game `id` in `main`, playing the seat of `token` if given. */
export function showGame(main, id, token) {
  let st = null; // the last `state` data, kept up to date by events
  let v = 0;
  let receivedAt = performance.now(); // when `st.clock` was received
  let presenceAt = receivedAt; // when `st.players.*.away_ms` was received
  let ws = null;
  let backoff = 500;
  let connected = false;
  let pingTimer = null;
  let resignArmed = null;
  let askedRematch = false;
  let notice = '';
  let noticeCode = ''; // what the notice is about (`data-code`), for tests and styles
  let hoverSq = null;
  let pendingAnim = null;
  let browsing = null; // plies shown when looking back through the move list, null = live
  let lowTimeWarned = false; // the low-time tick sounded during this turn of ours
  let premove = null; // a move (UCI) made before our turn, played when it comes

  const boardBox = h('div', { class: 'board-box' });
  const tooltip = h('div', { class: 'tooltip hidden', id: 'odds' });
  const side = h('div', { class: 'side' });
  const banner = h('div', { class: 'banner hidden', id: 'conn' });
  // The chat panel lives beside the redrawn side panel, so a redraw keeps what is typed.
  const chat = new ChatPanel((type, d) => send(type, d));
  const tools = boardTools({ flip: true, sound: true });
  // Moves typed on the keyboard (moveinput.js), under the board.
  const moveInput = h('input', { type: 'text', id: 'move-input', autocomplete: 'off', spellcheck: 'false' });
  const moveInputError = h('div', { class: 'move-input-error', id: 'move-input-error', role: 'alert' });
  const moveInputLabel = h('span', { class: 'muted' });
  const moveForm = h('form', {
    class: 'move-input hidden',
    id: 'move-input-form',
    onsubmit: (e) => {
      e.preventDefault();
      typedMove();
    },
  }, h('label', { for: 'move-input' }, moveInputLabel), moveInput, moveInputError);
  main.replaceChildren(h('div', { class: 'game-page' }, banner, h('div', { class: 'board-wrap' }, boardBox, tooltip, tools, moveForm),
    h('div', { class: 'side-col' }, side, chat.el)));

  const view = new BoardView(boardBox, {
    onMove: (uci) => playMove(uci),
    onPremove: (uci) => {
      premove = uci;
      if (uci) boardBox.dataset.premove = uci;
      else delete boardBox.dataset.premove;
    },
    onHover: (sq, letter, e) => hover(sq, letter, e),
  });

  function playMove(uci) {
    if (send('move', { uci }, v)) return;
    // No connection: the move is refused where the player can see it, and the board
    // goes back to the position the server last sent (a move is never kept for later:
    // the position may have changed by the time the connection is back).
    notice = t('moveNotSent');
    noticeCode = 'offline';
    render();
  }

  function clearPremove() {
    premove = null;
    view.setPremove(null);
    delete boardBox.dataset.premove;
  }

  // Our turn has come with a premove waiting: play it if it is legal now, else say so.
  function playPremove() {
    const uci = premove;
    clearPremove();
    if (st.legal.includes(uci)) {
      view.legal = [];
      playMove(uci);
      return;
    }
    notice = t('premoveCancelled').replace('{m}', uci);
    noticeCode = 'premove_cancelled';
    renderSide();
  }

  function typedMove() {
    const text = moveInput.value;
    const say = (code, extra = '') => {
      moveInputError.textContent = code ? t(`input_${code}`).replace('{m}', text.trim()).replace('{list}', extra) : '';
      if (code) moveInputError.dataset.code = code;
      else delete moveInputError.dataset.code;
    };
    if (!st || st.status !== 'live' || st.you !== st.turn) return say('notYourTurn');
    if (browsing !== null) browse(null);
    const r = readMove(text, parseBoard(st.fen), st.legal);
    if (r.error) return say(r.error, (r.candidates || []).join(', '));
    say(null);
    moveInput.value = '';
    view.select(null);
    view.legal = [];
    playMove(r.uci);
    return null;
  }

  function send(type, d, version) {
    if (!ws || ws.readyState !== WebSocket.OPEN) return false;
    const msg = { t: type };
    if (d !== undefined) msg.d = d;
    if (version !== undefined) msg.v = version;
    ws.send(JSON.stringify(msg));
    return true;
  }

  function connect() {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    ws = new WebSocket(`${proto}//${location.host}/ws`);
    ws.onopen = () => {
      connected = true;
      backoff = 500;
      banner.classList.add('hidden');
      send('join', { game: id, token: token || null });
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
      handle(msg);
    };
    ws.onclose = () => {
      clearInterval(pingTimer);
      if (connected || !st) {
        banner.textContent = t('reconnecting');
        banner.classList.remove('hidden');
      }
      connected = false;
      setTimeout(connect, backoff);
      backoff = Math.min(backoff * 2, 5000);
    };
  }

  function handle(msg) {
    const d = msg.d || {};
    if (msg.t === 'state') {
      if (token && d.you !== 'spectator' && d.status !== 'finished' && (!st || st.game !== d.game)) {
        rememberSeat(id, location.pathname + location.search);
      }
      const was = st ? st.status : null;
      // The start sounds when the game goes live, or on arriving at a seat of a game
      // that has just begun.
      if (d.status === 'live' && (was === 'waiting' || (!was && d.you !== 'spectator' && !d.moves.length))) {
        playSound('start');
      }
      st = d;
      v = msg.v;
      receivedAt = performance.now();
      presenceAt = receivedAt;
      pendingAnim = null;
      chat.update(d.chat, d.you);
      render();
      return;
    }
    if (msg.t === 'chat') {
      chat.add(d);
      return;
    }
    if (msg.t === 'error' && d.in === 'chat') {
      chat.showError(d.message || d.code);
      return;
    }
    if (msg.t === 'error') {
      notice = `${t('error')}: ${d.message || d.code}`;
      noticeCode = d.code || 'error';
      if (d.code === 'no_game' || d.code === 'bad_token' || d.code === 'private') {
        if (d.code === 'no_game') showNotFound(main, 'game');
        else main.replaceChildren(h('div', { class: 'card error-page' }, h('p', { class: 'error' }, notice),
          h('a', { href: '/' }, t('backToLobby'))));
        if (ws) {
          ws.onclose = null;
          ws.close();
        }
        return;
      }
      // A refused move left the board waiting: ask for the truth again.
      if (d.in === 'move') send('sync');
      renderSide();
      return;
    }
    if (msg.t === 'presence') {
      if (st) {
        st.players = d.players;
        st.spectators = d.spectators;
        presenceAt = performance.now();
        renderSide();
      }
      return;
    }
    if (msg.t === 'pong' || !STATE_CHANGES.has(msg.t)) return;
    if (!st || msg.v <= v) return; // stale
    if (msg.v > v + 1) {
      send('sync'); // we missed something
      return;
    }
    v = msg.v;
    if (msg.t === 'move') {
      receivedAt = performance.now(); // the clock in this event is as of now
      const taken = parseBoard(st.fen).has(d.ply.to);
      st.moves.push(d.ply);
      for (const k of ['fen', 'turn', 'check', 'pools', 'legal', 'clock', 'status', 'draw_offer', 'abortable', 'first_move']) {
        if (k in d) st[k] = d[k];
      }
      pendingAnim = { from: d.ply.from, to: d.ply.to, reveal: d.ply.reveal };
      if (st.takeback) st.takeback.offer = null; // a move drops a takeback request
      notice = '';
      noticeCode = '';
      playSound(taken ? 'capture' : 'move');
      if (d.ply.reveal) playSound('reveal');
      if (st.check) playSound('check');
      render();
    } else if (msg.t === 'end') {
      st.end = d;
      if (d.deal) tooltip.classList.add('hidden');
      st.status = 'finished';
      st.legal = [];
      st.draw_offer = null;
      st.abortable = false;
      st.first_move = null;
      notice = ''; // a draw declined or a refused move is no news on the result screen
      noticeCode = '';
      playSound('end');
      if (st.clock) {
        freezeClock();
        st.clock.running = null;
        st.clock.move_left_ms = null;
      }
      render();
      // With the deal public the server writes every capture in full: fetch the moves
      // as they may now be told (docs/protocol.md §3.3, `moves`).
      if (d.deal) send('sync');
    } else if (msg.t === 'draw') {
      st.draw_offer = d.offer;
      notice = d.declined_by && d.declined_by !== st.you ? t('drawDeclined') : '';
      noticeCode = notice ? 'draw_declined' : '';
      renderSide();
    } else if (msg.t === 'takeback') {
      // A request, its refusal, or plies taken back (a `state` follows with the position).
      if (st.takeback) Object.assign(st.takeback, { offer: d.offer, plies: d.plies });
      notice = d.taken_back ? t('takenBack') : d.declined_by && d.declined_by !== st.you ? t('takebackDeclined') : '';
      noticeCode = d.taken_back ? 'taken_back' : notice ? 'takeback_declined' : '';
      renderSide();
    } else if (msg.t === 'rematch') {
      st.rematch = d;
      // A spectator follows the players to their next game, as he followed this one.
      if ((askedRematch || st.you === 'spectator') && d.url) {
        location.href = d.url;
        return;
      }
      renderSide();
    }
  }

  // Takebacks (casual games between two people): ask, or answer the opponent. A move
  // that revealed a piece cannot be taken back; the server says so when asked.
  function takebackButtons(me, them) {
    const tb = st.takeback;
    if (tb.offer === them) {
      return [h('span', { class: 'offer', id: 'takeback-offer' }, t('takebackAsked')),
        h('button', { type: 'button', id: 'accept-takeback', onclick: () => send('accept_takeback') }, t('acceptTakeback')),
        h('button', { type: 'button', id: 'decline-takeback', onclick: () => send('decline_takeback') }, t('declineTakeback'))];
    }
    if (tb.offer === me) return [h('span', { class: 'offer', id: 'takeback-mine' }, t('youAskedTakeback'))];
    return [h('button', { type: 'button', id: 'takeback', title: t('takebackHint'), onclick: () => send('takeback') }, t('takeback'))];
  }

  // Keep the time the running side used until now when its clock stops.
  function freezeClock() {
    const c = st.clock;
    if (!c || !c.running) return;
    const used = performance.now() - receivedAt;
    c[`${c.running}_ms`] = Math.max(0, c[`${c.running}_ms`] - used);
  }

  function render() {
    if (!st) return;
    // A player sees his own side at the bottom, a spectator Red's; the flip button
    // turns that round (remembered in this browser).
    view.setFlipped((st.you === 'black') !== prefs().flip);
    if (browsing !== null && browsing >= st.moves.length) browsing = null;
    if (browsing !== null) {
      // An earlier position from the move list, as this viewer knew it: not playable.
      const boards = boardsBefore(st.start_fen, st.moves);
      const ply = browsing ? st.moves[browsing - 1] : null;
      view.setPosition(boards[browsing], {
        lastMove: ply ? { from: ply.from, to: ply.to } : null,
        check: ply && ply.check ? kingSquare(boards[browsing], ply.color === 'red' ? 'black' : 'red') : null,
      });
      pendingAnim = null;
      if (premove && st.status === 'live' && st.turn === st.you) playPremove();
      boardBox.dataset.browsing = String(browsing);
      boardBox.dataset.turn = st.turn;
      boardBox.dataset.status = st.status;
      renderSide();
      return;
    }
    delete boardBox.dataset.browsing;
    const board = parseBoard(st.fen);
    const last = st.moves.length ? st.moves[st.moves.length - 1] : null;
    const live = st.status === 'live';
    const player = st.you === 'red' || st.you === 'black';
    view.setPosition(board, {
      lastMove: last ? { from: last.from, to: last.to } : null,
      check: st.check ? kingSquare(board, st.turn) : null,
      legal: live ? st.legal : [],
      animate: pendingAnim,
      peek: st.end && st.end.deal ? dealMap(st.end.deal) : null,
      premoveColor: live && player && st.turn !== st.you ? st.you : null,
    });
    pendingAnim = null;
    moveForm.classList.toggle('hidden', !(live && player));
    if (!live) clearPremove();
    else if (premove && st.turn === st.you) playPremove();
    boardBox.dataset.turn = st.turn;
    boardBox.dataset.status = st.status;
    renderSide();
  }

  function playerPanel(color) {
    const p = st.players[color];
    const mine = st.you === color;
    const who = seatName(p);
    const online = p.kind === 'engine' || p.connected;
    const clock = st.clock ? h('div', { class: 'clock', id: `clock-${color}`, dataset: { color } },
      h('span', { class: 'game-time', title: t('gameTime') }, ''),
      st.time && st.time.move_ms ? h('span', { class: 'step-time', title: t('stepTime') }, '') : null) : null;
    const turn = st.status === 'live' && st.turn === color;
    return h('div', { class: `player ${color}${turn ? ' to-move' : ''}`, id: `player-${color}` },
      h('span', { class: `dot ${online ? 'on' : 'off'}`, title: online ? t('connected') : t('away') }),
      h('span', { class: 'name' }, `${t(color)} · ${who}${mine ? ` (${t('you')})` : ''}`),
      clock);
  }

  function statusLine() {
    if (st.end) {
      return h('div', { class: 'status result', id: 'result', dataset: { result: st.end.result, reason: st.end.reason } },
        resultText(st.end.result, st.end.reason));
    }
    if (st.status === 'waiting') return h('div', { class: 'status', id: 'status' }, t('waitingPlayer'));
    const mine = st.you === st.turn;
    let text = st.you === 'spectator' ? `${t(st.turn)} ${t('toMove')}` : mine ? t('yourTurn') : t('theirTurn');
    if (st.check) text += ` · ${t('check')}`;
    return h('div', {},
      h('div', { class: `status${mine ? ' mine' : ''}${st.check ? ' in-check' : ''}`, id: 'status' }, text),
      st.first_move ? h('div', { class: 'first-move', id: 'first-move', dataset: { color: st.first_move.color } }, '') : null);
  }

  // Before both first moves a player may abort (no result); the server says when.
  function abortButton() {
    return h('button', { type: 'button', id: 'abort', class: 'danger', onclick: () => send('abort') }, t('abort'));
  }

  function actions() {
    // The analysis board, in a new tab: a player's from his seat's view, anyone else's from the public view.
    const analyse = h('a', { class: 'button', id: 'to-analysis', target: '_blank', href: `/analysis/${id}${token ? `?seat=${encodeURIComponent(token)}` : ''}` }, t('toAnalysis'));
    if (st.you === 'spectator') {
      const info = h('span', { class: 'muted' }, `${t('spectator')} · ${t('spectators')}: ${st.spectators}`);
      if (st.status !== 'finished') return h('div', { class: 'actions' }, info, ' ', analyse);
      const r = st.rematch;
      return h('div', { class: 'actions' }, info,
        r && r.url ? h('a', { class: 'button primary', id: 'rematch-go', href: r.url }, t('watchRematch')) : null,
        h('a', { class: 'button', id: 'to-replay', href: `/replay/${id}` }, t('replay')), analyse);
    }
    const me = st.you;
    const them = me === 'red' ? 'black' : 'red';
    const btns = [];
    if (st.status === 'waiting' && st.abortable) btns.push(abortButton());
    if (st.status === 'live' && st.abortable) btns.push(abortButton());
    if (st.status === 'live') {
      if (!st.abortable) btns.push(h('button', {
        type: 'button',
        id: 'resign',
        class: resignArmed ? 'danger armed' : 'danger',
        onclick: () => {
          if (resignArmed) {
            clearTimeout(resignArmed);
            resignArmed = null;
            send('resign');
          } else {
            resignArmed = setTimeout(() => {
              resignArmed = null;
              renderSide();
            }, 4000);
          }
          renderSide();
        },
      }, resignArmed ? t('confirmResign') : t('resign')));
      // Before both first moves only Abort ends the game (the server refuses the rest).
      if (st.abortable) {
        // Abort only (above).
      } else if (st.draw_offer === them) {
        btns.push(h('span', { class: 'offer' }, t('drawOffered')));
        btns.push(h('button', { type: 'button', id: 'accept-draw', onclick: () => send('accept_draw') }, t('acceptDraw')));
        btns.push(h('button', { type: 'button', id: 'decline-draw', onclick: () => send('decline_draw') }, t('declineDraw')));
      } else if (st.draw_offer === me) {
        btns.push(h('span', { class: 'offer' }, t('youOfferedDraw')));
      } else {
        btns.push(h('button', { type: 'button', id: 'offer-draw', onclick: () => send('offer_draw') }, t('offerDraw')));
      }
      if (!st.abortable && st.takeback && st.takeback.allowed) btns.push(...takebackButtons(me, them));
      const opp = st.players[them];
      if (!st.abortable && opp.kind === 'human' && opp.joined && !opp.connected && opp.away_ms !== null) {
        const away = opp.away_ms + (performance.now() - presenceAt);
        if (away >= st.abandon_ms) {
          btns.push(h('button', { type: 'button', id: 'claim', onclick: () => send('claim_abandonment') }, t('claimWin')));
        }
      }
    } else if (st.status === 'finished') {
      const r = st.rematch;
      if (r && r.url) {
        btns.push(h('a', { class: 'button primary', id: 'rematch-go', href: r.url }, t('rematchGo')));
      } else if (r && r.offered_by && r.offered_by.includes(me)) {
        btns.push(h('span', { class: 'offer' }, t('rematchWaiting')));
      } else {
        if (r && r.offered_by && r.offered_by.includes(them)) btns.push(h('span', { class: 'offer' }, t('rematchOffered')));
        btns.push(h('button', {
          type: 'button',
          id: 'rematch',
          class: 'primary',
          onclick: () => {
            askedRematch = true;
            send('rematch');
          },
        }, t('rematch')));
      }
      btns.push(h('a', { class: 'button', id: 'to-replay', href: `/replay/${id}` }, t('replay')));
    }
    btns.push(analyse);
    return h('div', { class: 'actions' }, btns);
  }

  function invite() {
    if (st.status !== 'waiting' || st.you === 'spectator') return null;
    // The server sends the link to the creating seat while the game waits; the copy
    // the lobby kept is the fallback (an older server).
    let link = st.invite_url || null;
    if (!link) {
      try {
        link = sessionStorage.getItem(`jieqi.invite.${id}`);
      } catch (_) {
        link = null;
      }
    }
    if (!link) return null;
    const url = new URL(link, location.origin).href;
    const input = h('input', { type: 'text', readonly: true, value: url, id: 'invite-url', onclick: (e) => e.target.select() });
    const copy = h('button', {
      type: 'button',
      onclick: async (e) => {
        try {
          await navigator.clipboard.writeText(url);
          e.target.textContent = t('copied');
        } catch (_) {
          input.select();
        }
      },
    }, t('copy'));
    return h('div', { class: 'invite card' }, h('div', {}, t('inviteLink')), h('div', { class: 'row' }, input, copy));
  }

  function renderSide() {
    if (!st) return;
    const top = view.flipped ? 'red' : 'black';
    const bottom = top === 'red' ? 'black' : 'red';
    const mode = notationMode();
    const texts = moveTexts(st.start_fen, st.moves, mode);
    // Looking back, the pools and captured pieces are those of the position shown.
    const shown = browsing === null ? st.moves : st.moves.slice(0, browsing);
    const lost = capturedBySide(shown);
    // After the end, with the deal public, the moves name every capture: the pools are
    // counted from them, so a piece taken face-down leaves its pool there too.
    const counted = browsing !== null || (st.end && st.end.deal);
    const pools = counted ? poolsAfter(st.start_fen, st.moves, browsing === null ? st.moves.length : browsing) : st.pools;
    const capturedRow = (color) => h('div', { class: 'captured-row', dataset: { color } },
      h('span', { class: 'side-name' }, t(color)),
      h('span', {}, lost[color].length ? lost[color].map((l) => miniPiece(l, 20)) : h('span', { class: 'muted' }, '—')));
    const list = moveTable(texts, st.moves, browsing === null ? st.moves.length : browsing, browse);
    side.replaceChildren(...[
      playerPanel(top),
      statusLine(),
      h('div', { class: 'game-mode', id: 'game-mode' }, h('span', { class: `badge ${st.rated ? 'rated' : 'casual'}` }, t(st.rated ? 'rated' : 'casual'))),
      notice ? h('div', { class: 'notice', id: 'notice', dataset: { code: noticeCode } }, notice) : null,
      browsing !== null
        ? h('button', { type: 'button', class: 'browsing', id: 'back-to-game', onclick: () => browse(null) },
          `${t('viewing').replace('{n}', String(browsing))} · ${t('backToGame')}`)
        : null,
      invite(),
      actions(),
      h('div', { class: 'card moves-card' },
        h('div', { class: 'card-head' }, h('b', {}, t('moves')), notationSwitch(renderSide)),
        h('div', { class: 'moves-scroll', id: 'moves' }, list)),
      h('div', { class: 'card pools' }, h('b', {}, t('pool')),
        poolView('red', pools.red, pools.known_captured && pools.known_captured.red),
        poolView('black', pools.black, pools.known_captured && pools.known_captured.black)),
      h('div', { class: 'card captured' }, h('b', {}, t('captured')), capturedRow('red'), capturedRow('black')),
      commitmentBox(st.commitment, st.end),
      playerPanel(bottom),
    ].filter(Boolean));
    const scroll = side.querySelector('.moves-scroll');
    scroll.scrollTop = scroll.scrollHeight;
    turnTitle();
    tick();
  }

  // The tab's title tells a player whose move it is, even from another tab.
  function turnTitle() {
    const mine = st.status === 'live' && st.you === st.turn;
    const plain = currentLang() === 'zh' ? '揭棋 Jieqi' : 'Jieqi 揭棋';
    document.title = mine ? `● ${t('yourTurnTitle')} · ${t('title')}` : plain;
  }

  function tick() {
    const fm = side.querySelector('#first-move');
    if (fm && st && st.first_move) {
      const left = Math.max(0, st.first_move.left_ms - (performance.now() - receivedAt));
      const key = st.first_move.color === 'red' ? 'firstMoveRed' : 'firstMoveBlack';
      fm.textContent = t(key).replace('{s}', String(Math.ceil(left / 1000)));
    }
    if (!st || !st.clock) return;
    const c = st.clock;
    const elapsed = performance.now() - receivedAt;
    for (const color of ['red', 'black']) {
      const box = side.querySelector(`#clock-${color}`);
      if (!box) continue;
      const running = c.running === color;
      const left = c[`${color}_ms`] - (running ? elapsed : 0);
      const gt = box.querySelector('.game-time');
      gt.textContent = `${t('gameTime')} ${fmtClock(left)}`;
      box.classList.toggle('running', running);
      box.classList.toggle('low', left < 10000);
      const stEl = box.querySelector('.step-time');
      const step = running && c.move_left_ms !== null ? c.move_left_ms - elapsed : null;
      if (stEl) {
        stEl.textContent = `${t('stepTime')} ${fmtClock(step === null ? st.time.move_ms : step)}`;
        stEl.classList.toggle('low', running && step !== null && step < 10000);
      }
      // One tick when our own time (game or move) falls under ten seconds, once a turn.
      if (color === st.you) {
        const low = running && Math.min(left, step === null ? Infinity : step) < 10000;
        if (low && !lowTimeWarned) playSound('lowtime');
        if (!running) lowTimeWarned = false;
        else if (low) lowTimeWarned = true;
      }
    }
  }

  function hover(sq, letter, e) {
    if (st && st.end && st.end.deal) {
      // The deal is public and each piece shows what it is: no odds to guess.
      tooltip.classList.add('hidden');
      return;
    }
    if (sq === hoverSq && !tooltip.classList.contains('hidden')) {
      position(e);
      return;
    }
    hoverSq = sq;
    if (!st || !letter || (letter !== 'X' && letter !== 'x')) {
      tooltip.classList.add('hidden');
      return;
    }
    const color = letter === 'X' ? 'red' : 'black';
    tooltip.replaceChildren(oddsTooltip(color, st.pools[color]));
    tooltip.dataset.sq = sq;
    tooltip.classList.remove('hidden');
    position(e);
  }

  function position(e) {
    const wrap = tooltip.parentElement.getBoundingClientRect();
    tooltip.style.left = `${e.clientX - wrap.left + 16}px`;
    tooltip.style.top = `${e.clientY - wrap.top + 16}px`;
  }

  // Look at an earlier position (n plies played), or back to the game (null).
  function browse(n) {
    browsing = n === null || n >= st.moves.length ? null : Math.max(0, n);
    view.select(null);
    render();
  }

  document.addEventListener('keydown', (e) => {
    if (!st || (e.target && (e.target.tagName === 'INPUT' || e.target.tagName === 'SELECT'))) return;
    const at = browsing === null ? st.moves.length : browsing;
    if (e.key === 'Escape') {
      view.select(null);
      clearPremove();
      if (browsing !== null) browse(null);
    } else if (e.key === 'ArrowLeft') browse(at - 1);
    else if (e.key === 'ArrowRight') browse(at + 1);
    else return;
    e.preventDefault();
  });
  const drawInputLabel = () => {
    moveInputLabel.textContent = t('moveInputLabel');
    moveInput.placeholder = t('moveInputHint');
  };
  drawInputLabel();
  onPrefsChange(() => render());
  onLangChange(() => {
    drawInputLabel();
    chat.draw();
    render();
    if (!connected && st) banner.textContent = t('reconnecting');
  });
  setInterval(tick, 100);
  // Presence `away_ms` grows while nobody tells us: redraw the buttons now and then.
  setInterval(() => {
    if (!st || st.status !== 'live' || st.you === 'spectator') return;
    const opp = st.players[st.you === 'red' ? 'black' : 'red'];
    if (opp.kind === 'human' && opp.joined && !opp.connected) renderSide();
  }, 5000);
  connect();
}
