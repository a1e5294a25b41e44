"""sounddevice, imported only when a real microphone or speaker is used: it needs PortAudio, which a
node reading files (tests, CI) does not have to have."""

from __future__ import annotations

from types import ModuleType


class NoSoundDevice(Exception):
    """PortAudio is missing; the message is one line meant for the user."""


def import_sounddevice() -> ModuleType:
    try:
        import sounddevice
    except OSError as error:
        raise NoSoundDevice(f"cannot use the sound card: PortAudio is not available ({error}); "
                            "install libportaudio2 or use --input/--output files") from error
    return sounddevice


def describe_devices() -> str:
    """The input and output devices, one a line, for --list-devices."""
    sd = import_sounddevice()
    lines = []
    for kind, channels in (("input", "max_input_channels"), ("output", "max_output_channels")):
        devices = [(index, device) for index, device in enumerate(sd.query_devices()) if device[channels] > 0]
        lines.append(f"{kind} devices:")
        lines += [f"  {index}: {device['name']}" for index, device in devices] or ["  (none found)"]
    return "\n".join(lines)
