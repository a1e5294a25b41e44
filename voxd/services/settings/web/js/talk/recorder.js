// The microphone from start to stop, as a 16 kHz mono WAV: getUserMedia, an AudioWorklet that
// collects the samples (capture-worklet.js), then wav.js.
import { encodeWav, resample } from "./wav.js";

export class Recorder {
  async start() {
    // Made inside the press itself, before anything is awaited: Safari lets audio start only from a gesture.
    this.context = new AudioContext();
    // The worklet loads while the microphone opens, so the first words are not lost waiting for it.
    const loading = this.context.audioWorklet.addModule(new URL("./capture-worklet.js", import.meta.url));
    try {
      this.stream = await navigator.mediaDevices.getUserMedia({
        audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true },
      });
      await loading;
    } catch (error) {
      await this.context.close();
      throw error;
    }
    await this.context.resume();
    this.chunks = [];
    this.node = new AudioWorkletNode(this.context, "voxd-capture");
    this.node.port.onmessage = (event) => this.chunks.push(event.data);
    this.source = this.context.createMediaStreamSource(this.stream);
    this.source.connect(this.node);
  }

  // The recording so far as a WAV Blob; the microphone is released.
  async stop() {
    this.node.port.postMessage("stop");
    this.source.disconnect();
    this.stream.getTracks().forEach((track) => track.stop());
    const rate = this.context.sampleRate;
    await this.context.close();
    const length = this.chunks.reduce((total, chunk) => total + chunk.length, 0);
    const samples = new Float32Array(length);
    let at = 0;
    for (const chunk of this.chunks) {
      samples.set(chunk, at);
      at += chunk.length;
    }
    return { wav: encodeWav(resample(samples, rate)), seconds: length / rate };
  }
}
