// The microphone's samples, handed to the page as they come (an AudioWorklet runs off the main
// thread, so no sample is dropped while the page is busy). The first channel only: voxd wants mono.
class CaptureProcessor extends AudioWorkletProcessor {
  constructor() {
    super();
    this.recording = true;
    this.port.onmessage = (event) => {
      if (event.data === "stop") this.recording = false;
    };
  }

  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    if (channel && channel.length) this.port.postMessage(channel.slice(0));
    return this.recording;
  }
}

registerProcessor("voxd-capture", CaptureProcessor);
