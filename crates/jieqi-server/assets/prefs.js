// What this browser remembers about the board (localStorage): which side is at the
// bottom, the piece style, the board theme and whether sounds play; and the small
// settings panel that changes them on the game, replay and analysis pages.

import { t, onLangChange } from './i18n.js';
import { h, recall, remember } from './util.js';

/** Piece styles: simplified characters, traditional characters, Western letters. */
export const PIECE_STYLES = ['simplified', 'traditional', 'western'];
/** Board themes (the `theme-NAME` class on the board's SVG). */
export const THEMES = ['wood', 'green', 'slate'];

const KEYS = { flip: 'jieqi.flip', pieces: 'jieqi.pieces', theme: 'jieqi.theme', muted: 'jieqi.muted' };
const listeners = [];

/** The remembered choices: `{flip, pieces, theme, muted}`. `flip` turns the board
 * round from its usual side (a player's own side, Red for spectators). */
export function prefs() {
  const pieces = recall(KEYS.pieces, 'simplified');
  const theme = recall(KEYS.theme, 'wood');
  return {
    flip: recall(KEYS.flip, '0') === '1',
    pieces: PIECE_STYLES.includes(pieces) ? pieces : 'simplified',
    theme: THEMES.includes(theme) ? theme : 'wood',
    muted: recall(KEYS.muted, '0') === '1',
  };
}

/** Change one choice (`flip`, `pieces`, `theme`, `muted`), remember it, tell the boards. */
export function setPref(key, value) {
  if (!(key in KEYS)) return;
  remember(KEYS[key], typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
  for (const f of listeners) f(key);
}

/** Call `f(key)` whenever a choice changes. */
export function onPrefsChange(f) {
  listeners.push(f);
}

function select(id, key, values, labelKey) {
  const current = prefs()[key];
  return h('label', {},
    h('span', {}, t(labelKey)),
    h('select', { id, onchange: (e) => setPref(key, e.target.value) },
      values.map((v) => h('option', { value: v, selected: v === current }, t(`${labelKey}_${v}`)))));
}

/**
 * The row of board controls: a settings button that opens the panel of piece style and
 * board theme, and when asked a flip button and a sound switch.
 * @param {{flip?: boolean, sound?: boolean}} what
 */
export function boardTools(what = {}) {
  const bar = h('div', { class: 'board-tools', id: 'board-tools' });
  let open = false;
  const draw = () => {
    const p = prefs();
    const panel = open
      ? h('div', { class: 'settings-panel card', id: 'settings-panel' },
        select('piece-style', 'pieces', PIECE_STYLES, 'pieceStyle'),
        select('board-theme', 'theme', THEMES, 'boardTheme'))
      : null;
    bar.replaceChildren(...[
      what.flip ? h('button', {
        type: 'button',
        id: 'flip-board',
        title: t('flipBoard'),
        'aria-pressed': String(p.flip),
        onclick: () => setPref('flip', !prefs().flip),
      }, `⇅ ${t('flipBoard')}`) : null,
      what.sound ? h('button', {
        type: 'button',
        id: 'sound-toggle',
        title: t(p.muted ? 'soundOff' : 'soundOn'),
        'aria-pressed': String(p.muted),
        dataset: { muted: String(p.muted) },
        onclick: () => setPref('muted', !prefs().muted),
      }, `♪ ${t(p.muted ? 'soundOff' : 'soundOn')}`) : null,
      h('button', {
        type: 'button',
        id: 'board-settings',
        'aria-expanded': String(open),
        onclick: () => {
          open = !open;
          draw();
        },
      }, `⚙ ${t('boardSettings')}`),
      panel,
    ].filter(Boolean));
  };
  draw();
  onPrefsChange(draw);
  onLangChange(draw);
  return bar;
}
