// The game's sounds, synthesized with the Web Audio API (no sound files, nobody
// else's recordings): a wooden click for a move, a heavier knock for a capture, a
// rising flick for a reveal, two sharp tones for check, a tick for low time, a chord
// up for the start and down for the end. Silent while muted (prefs.js).
//
// Every call is recorded in `window.jieqiSounds` (`{name, played}`, the last 100) and
// passed to `window.jieqiSoundHook` when a page or a test sets one: the tests check
// what would sound, never the audio itself.

import { prefs } from './prefs.js';

/** The names `playSound` knows. */
export const SOUNDS = ['move', 'capture', 'reveal', 'check', 'lowtime', 'start', 'end'];

let ctx = null;

function audio() {
  if (ctx) return ctx;
  const Ctx = globalThis.AudioContext || globalThis.webkitAudioContext;
  if (!Ctx) return null;
  try {
    ctx = new Ctx();
  } catch (_) {
    ctx = null;
  }
  return ctx;
}

// One enveloped oscillator: `type` wave from `f0` (Hz) gliding to `f1`, starting `at`
// seconds from now, lasting `dur`, peak `gain`.
function tone(ac, { f0, f1 = f0, at = 0, dur = 0.12, type = 'sine', gain = 0.25 }) {
  const t0 = ac.currentTime + at;
  const osc = ac.createOscillator();
  const amp = ac.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(f0, t0);
  if (f1 !== f0) osc.frequency.exponentialRampToValueAtTime(f1, t0 + dur);
  amp.gain.setValueAtTime(0.0001, t0);
  amp.gain.exponentialRampToValueAtTime(gain, t0 + 0.005);
  amp.gain.exponentialRampToValueAtTime(0.0001, t0 + dur);
  osc.connect(amp).connect(ac.destination);
  osc.start(t0);
  osc.stop(t0 + dur + 0.02);
}

// A short burst of filtered noise: the knock of wood on wood.
function knock(ac, { at = 0, dur = 0.07, freq = 1800, q = 4, gain = 0.6 }) {
  const t0 = ac.currentTime + at;
  const len = Math.max(1, Math.floor(ac.sampleRate * dur));
  const buf = ac.createBuffer(1, len, ac.sampleRate);
  const data = buf.getChannelData(0);
  for (let i = 0; i < len; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / len) ** 3;
  const src = ac.createBufferSource();
  src.buffer = buf;
  const filter = ac.createBiquadFilter();
  filter.type = 'bandpass';
  filter.frequency.value = freq;
  filter.Q.value = q;
  const amp = ac.createGain();
  amp.gain.value = gain;
  src.connect(filter).connect(amp).connect(ac.destination);
  src.start(t0);
}

const VOICES = {
  move: (ac) => {
    knock(ac, {});
    tone(ac, { f0: 320, f1: 180, dur: 0.08, type: 'triangle', gain: 0.18 });
  },
  capture: (ac) => {
    knock(ac, { freq: 900, gain: 0.8, dur: 0.1 });
    knock(ac, { at: 0.06, freq: 1400, gain: 0.5 });
    tone(ac, { f0: 220, f1: 110, dur: 0.14, type: 'triangle', gain: 0.22 });
  },
  reveal: (ac) => tone(ac, { f0: 420, f1: 940, at: 0.05, dur: 0.16, type: 'triangle', gain: 0.16 }),
  check: (ac) => {
    tone(ac, { f0: 880, dur: 0.11, type: 'square', gain: 0.08 });
    tone(ac, { f0: 660, at: 0.13, dur: 0.16, type: 'square', gain: 0.08 });
  },
  lowtime: (ac) => tone(ac, { f0: 1200, dur: 0.06, type: 'sine', gain: 0.2 }),
  start: (ac) => [523.25, 659.25, 783.99].forEach((f, i) => tone(ac, { f0: f, at: i * 0.09, dur: 0.22, gain: 0.14 })),
  end: (ac) => [783.99, 659.25, 523.25].forEach((f, i) => tone(ac, { f0: f, at: i * 0.12, dur: 0.3, gain: 0.14 })),
};

/** Play one of `SOUNDS` unless muted; recorded either way (see above). */
export function playSound(name) {
  const played = !prefs().muted && name in VOICES;
  const log = (globalThis.jieqiSounds = globalThis.jieqiSounds || []);
  log.push({ name, played });
  if (log.length > 100) log.splice(0, log.length - 100);
  if (typeof globalThis.jieqiSoundHook === 'function') globalThis.jieqiSoundHook(name, played);
  if (!played) return;
  // Before the first click or key on the page the browser would refuse to start audio.
  if (navigator.userActivation && !navigator.userActivation.hasBeenActive) return;
  const ac = audio();
  if (!ac) return;
  // Browsers start an audio context suspended until the page has been used.
  if (ac.state === 'suspended') ac.resume().catch(() => {});
  try {
    VOICES[name](ac);
  } catch (_) {
    // A sound is never worth an error on the page.
  }
}
