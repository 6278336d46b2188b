// Game chat (docs/web.md, "Chat"): the panel of the game page and the read-only list
// of the replay. Every line is put in the page as text (text nodes through `h`), never
// as HTML, so a line cannot carry markup into the page.

import { t, addStrings } from './i18n.js';
import { h } from './util.js';

addStrings({
  zh: {
    abort: '中止对局',
    aborted: '对局已中止',
    reason_aborted: '中止',
    firstMoveRed: '红方须在 {s} 秒内走第一步',
    firstMoveBlack: '黑方须在 {s} 秒内走第一步',
    chat: '聊天',
    chatPlayers: '对手聊天',
    chatSpectators: '观众聊天',
    chatPlaceholder: '说点什么…（最多 140 字）',
    chatSend: '发送',
    chatMute: '屏蔽对手',
    chatUnmute: '取消屏蔽',
    chatMuted: '已屏蔽对手的消息',
    chatGuest: '游客',
    chatEmpty: '还没有消息',
  },
  en: {
    abort: 'Abort game',
    aborted: 'Game aborted',
    reason_aborted: 'aborted',
    firstMoveRed: 'Red must make a first move within {s} s',
    firstMoveBlack: 'Black must make a first move within {s} s',
    chat: 'Chat',
    chatPlayers: 'Player chat',
    chatSpectators: 'Spectator chat',
    chatPlaceholder: 'Say something… (140 characters at most)',
    chatSend: 'Send',
    chatMute: 'Mute opponent',
    chatUnmute: 'Unmute',
    chatMuted: "Your opponent's messages are hidden",
    chatGuest: 'Guest',
    chatEmpty: 'No messages yet',
  },
});

/** Who said a line: the account name, else the seat's colour, else "Guest". */
export function senderName(line) {
  if (line.name) return line.name;
  if (line.color) return t(line.color);
  return t('chatGuest');
}

/** One line as a list item: the sender and the text, both as text. */
export function chatLine(line) {
  return h('li', { class: `chat-line${line.color ? ` ${line.color}` : ''}`, dataset: { room: line.room } },
    h('span', { class: 'chat-who' }, senderName(line)),
    h('span', { class: 'chat-text' }, line.text));
}

/** The chat panel of the game page. It is built once and kept (a redraw of the game
 * must not take away what is being typed); `update` and `add` change its content. */
export class ChatPanel {
  constructor(send) {
    this.send = send;
    this.room = null;
    this.you = null;
    this.muted = false;
    this.lines = [];
    this.title = h('b', { class: 'chat-title' });
    this.muteBtn = h('button', {
      type: 'button',
      id: 'chat-mute',
      class: 'small',
      onclick: () => this.send('chat_mute', { muted: !this.muted }),
    });
    this.list = h('ul', { class: 'chat-lines', id: 'chat-lines' });
    this.input = h('input', { type: 'text', id: 'chat-input', maxlength: 140, autocomplete: 'off' });
    this.error = h('div', { class: 'chat-error hidden', id: 'chat-error' });
    this.form = h('form', {
      class: 'chat-form',
      onsubmit: (e) => {
        e.preventDefault();
        const text = this.input.value.trim();
        if (!text || !this.room) return;
        if (this.send('chat', { room: this.room, text })) this.input.value = '';
      },
    }, this.input, h('button', { type: 'submit', id: 'chat-send' }, ''));
    this.el = h('div', { class: 'card chat hidden', id: 'chat' },
      h('div', { class: 'card-head' }, this.title, this.muteBtn), this.list, this.error, this.form);
  }

  /** The chat of a `state`: the room, its lines and the mute switch. */
  update(chat, you) {
    this.room = chat ? chat.room : null;
    this.you = you;
    this.muted = !!(chat && chat.muted);
    this.lines = chat ? chat.lines.slice() : [];
    this.el.dataset.room = this.room || '';
    this.draw();
  }

  /** A `chat` event. */
  add(line) {
    if (line.room !== this.room) return;
    this.lines.push(line);
    this.showError('');
    if (this.lines.length === 1 || this.muted) {
      this.draw();
      return;
    }
    this.list.appendChild(chatLine(line));
    this.list.scrollTop = this.list.scrollHeight;
  }

  /** An `error` answering `chat`: shown under the lines. */
  showError(text) {
    this.error.textContent = text;
    this.error.classList.toggle('hidden', !text);
  }

  /** Redraws the texts (also after a language change). */
  draw() {
    this.el.classList.toggle('hidden', !this.room);
    this.title.textContent = this.room === 'players' ? t('chatPlayers') : t('chatSpectators');
    const player = this.you === 'red' || this.you === 'black';
    this.muteBtn.classList.toggle('hidden', !player);
    this.muteBtn.textContent = this.muted ? t('chatUnmute') : t('chatMute');
    this.muteBtn.dataset.muted = String(this.muted);
    this.input.placeholder = t('chatPlaceholder');
    this.form.querySelector('#chat-send').textContent = t('chatSend');
    this.list.replaceChildren(...(this.lines.length ? this.lines.map(chatLine)
      : [h('li', { class: 'muted chat-none' }, t('chatEmpty'))]),
    ...(this.muted ? [h('li', { class: 'muted chat-muted' }, t('chatMuted'))] : []));
    this.list.scrollTop = this.list.scrollHeight;
  }
}

/** The chat of a finished game in its replay: both rooms, read only. */
export function replayChat(lines) {
  if (!lines || !lines.length) return null;
  const room = (name, title) => {
    const mine = lines.filter((l) => l.room === name);
    return mine.length
      ? h('div', { class: 'chat-room', dataset: { room: name } }, h('div', { class: 'muted' }, t(title)),
        h('ul', { class: 'chat-lines' }, mine.map(chatLine)))
      : null;
  };
  return h('div', { class: 'card chat', id: 'replay-chat' }, h('b', {}, t('chat')),
    room('players', 'chatPlayers'), room('spectators', 'chatSpectators'));
}
