// Push-to-talk: the microphone as a 16 kHz WAV to the command center as the logged-in user (the
// same `POST /api/v0/command` as `voxd ask --wav`), then what voxd heard, chose and answered, with
// the stage timings and the spoken reply. Typed words work too (`voxd ask --speak`).
import { el, field, problem } from "../dom.js";
import { Recorder } from "../talk/recorder.js";
import { encodeWav, RATE } from "../talk/wav.js";
import { httpsSteps } from "../talk/https-steps.js";

const SERVICE = "command-center";
const COMMAND = "/api/v0/command";
const SHORTEST_SECONDS = 0.3; // a tap, not speech: nothing is sent

export async function render(main, ctx) {
  const answer = el("section", { id: "talk-answer", "aria-live": "polite", "aria-labelledby": "answer-heading" });
  const microphone = window.isSecureContext && navigator.mediaDevices && window.AudioWorkletNode
    ? talkButton(ctx, answer) : httpsSteps();
  main.replaceChildren(el("h1", {}, "Talk to voxd"), microphone, typedForm(ctx, answer), answer);
}

function talkButton(ctx, answer) {
  const state = el("p", { id: "talk-state" }, "Hold the button (or press Space on it) while you speak; let go to send.");
  const button = el("button", { type: "button", id: "talk-button", class: "talk", "aria-pressed": "false" }, "Hold to talk");
  let recorder = null;
  let starting = null;

  const start = async () => {
    if (recorder) return;
    recorder = new Recorder();
    button.setAttribute("aria-pressed", "true");
    button.textContent = "Listening… let go to send";
    state.textContent = "Opening the microphone…";
    const current = recorder;
    starting = recorder.start().then(() => {
      if (recorder === current) state.textContent = "Listening."; // from now on the words are kept
    }, (error) => {
      state.textContent = microphoneProblem(error);
      reset();
      throw error;
    });
  };
  const reset = () => {
    recorder = null;
    button.setAttribute("aria-pressed", "false");
    button.textContent = "Hold to talk";
  };
  const stop = async () => {
    if (!recorder) return;
    const player = unlockedPlayer(); // while the release is still a gesture
    const current = recorder;
    try {
      await starting;
    } catch (error) {
      return;
    }
    reset();
    const { wav, seconds } = await current.stop();
    if (seconds < SHORTEST_SECONDS) {
      state.textContent = "That was too short: hold the button while you speak.";
      return;
    }
    state.textContent = `Sending ${seconds.toFixed(1)} s of speech…`;
    await ask(ctx, answer, () => ctx.api.post(SERVICE, COMMAND, wav), player);
    state.textContent = "Hold the button (or press Space on it) while you speak; let go to send.";
  };

  button.addEventListener("pointerdown", (event) => {
    button.setPointerCapture(event.pointerId);
    start();
  });
  button.addEventListener("pointerup", stop);
  button.addEventListener("pointercancel", stop);
  button.addEventListener("contextmenu", (event) => event.preventDefault()); // a long press on a phone
  // From the keyboard: Space or Enter starts, a second press sends (press-to-start, press-to-stop).
  button.addEventListener("keydown", (event) => {
    if (event.key !== " " && event.key !== "Enter") return;
    event.preventDefault();
    if (event.repeat) return;
    if (recorder) stop();
    else start();
  });
  return el("section", { class: "push-to-talk" }, button, state);
}

function microphoneProblem(error) {
  if (error && error.name === "NotAllowedError") return "The microphone was not allowed: allow it for this site in the browser's settings, then try again.";
  if (error && error.name === "NotFoundError") return "No microphone was found.";
  return `The microphone could not be opened: ${problem(error)}`;
}

function typedForm(ctx, answer) {
  const words = el("input", { type: "text", name: "text", id: "talk-text", maxlength: 1000, required: true, autocomplete: "off" });
  return el("form", { id: "talk-typed", onsubmit: async (event) => {
    event.preventDefault();
    if (!words.value.trim()) return;
    const player = unlockedPlayer();
    await ask(ctx, answer, () => ctx.api.post(SERVICE, COMMAND, { text: words.value.trim(), speak: true }), player);
  } }, field("Or type it", words), el("button", { type: "submit" }, "Ask"));
}

async function ask(ctx, answer, call, player) {
  answer.replaceChildren(el("progress", { "aria-label": "Waiting for voxd's answer" }));
  let reply;
  try {
    reply = await call();
  } catch (error) {
    // voxd's 503s (no model, no speech service) still carry a sentence to say (docs/api.md, POST /command)
    answer.replaceChildren(el("p", { class: "error", role: "alert" }, error.said || problem(error)),
      error.said ? el("p", {}, el("small", {}, problem(error))) : null);
    return;
  }
  answer.replaceChildren(...describe(reply));
  if (reply.audio) play(answer, reply.audio, player);
}

function describe(reply) {
  const rows = [["Heard", reply.transcript], ["Reply", reply.text], ["Command", reply.command || (reply.understood === false ? "none (not understood)" : "none (answered in words)")],
    ["Arguments", Object.keys(reply.arguments || {}).length ? JSON.stringify(reply.arguments) : "none"],
    ["Routed by", reply.routed_by], ["Speaker", reply.speaker ? reply.speaker.name : null]]
    .filter(([, value]) => value !== undefined && value !== null);
  const facts = el("dl", { class: "answer" }, rows.map(([name, value]) =>
    [el("dt", {}, name), el("dd", { "data-field": name.toLowerCase() }, String(value))]));
  const timings = Object.entries(reply.timings || {});
  const table = el("table", { id: "talk-timings" }, el("caption", {}, "Stage timings (ms)"),
    el("tbody", {}, timings.map(([stage, ms]) => el("tr", {}, el("th", { scope: "row" }, stage), el("td", {}, ms.toFixed(1))))));
  return [el("h2", { id: "answer-heading" }, "voxd's answer"), facts, timings.length ? table : null];
}

// The reply's player, made and started on a moment of silence while the person's press or click is
// still a gesture: Safari then lets the same element play the reply that arrives seconds later.
function unlockedPlayer() {
  const audio = el("audio", { id: "reply-audio", controls: true, "aria-label": "voxd's spoken reply" });
  audio.src = URL.createObjectURL(encodeWav(new Float32Array(RATE / 100)));
  audio.play().catch(() => null);
  return audio;
}

function play(answer, base64, audio) {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  URL.revokeObjectURL(audio.src);
  const reply = URL.createObjectURL(new Blob([bytes], { type: "audio/wav" }));
  audio.src = reply;
  const mark = (event) => {
    if (audio.currentSrc === reply) audio.setAttribute("data-played", event.type); // not the silence before it
  };
  audio.addEventListener("ended", mark);
  audio.addEventListener("playing", mark);
  answer.append(audio);
  audio.play().catch(() => {
    answer.append(el("p", {}, "The browser did not play the reply by itself: press play above."));
  });
}
