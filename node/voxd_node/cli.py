"""`voxd-node`: parse the options, open the audio ends and the model once, run the agent."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from dataclasses import replace
from pathlib import Path

import click

from .agent import NodeAgent
from .audio_sinks import SinkError, open_sink
from .audio_sources import SourceError, open_source
from .command_client import CommandClient
from .config import ConfigError, NodeConfig, load_config, require_tls
from .sound_device import NoSoundDevice, describe_devices
from .trust import authority_fingerprint, server_context
from .wake_word import WakeWordDetector

log = logging.getLogger("voxd_node")

STARTUP_ERRORS = (ConfigError, SourceError, SinkError, NoSoundDevice)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
              help="The node's TOML file, as written by `voxd node register --config FILE`.")
@click.option("--server", help="Command center URL; overrides command_center_url.")
@click.option("--input", "input_spec", metavar="FILE.wav|-",
              help="Read audio from a WAV file or raw 16 kHz 16-bit mono PCM on stdin instead of the microphone.")
@click.option("--output", "output_spec", metavar="FILE.wav|null",
              help="Write everything played to a WAV file, or discard it, instead of using the speaker.")
@click.option("--exit-after", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
              help="Stop cleanly after this many seconds.")
@click.option("--list-devices", is_flag=True, help="List the sound devices and exit.")
@click.option("-v", "--verbose", is_flag=True, help="Log debugging details.")
def main(config_path: Path | None, server: str | None, input_spec: str | None, output_spec: str | None,
         exit_after: float | None, list_devices: bool, verbose: bool) -> None:
    """Listen for the wake word and talk to the voxd command center."""
    if list_devices:
        _list_devices()
        return
    if config_path is None:
        raise click.UsageError("--config FILE is required")
    logging.basicConfig(level=logging.DEBUG if verbose else logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        config = load_config(config_path)
        if server:
            config = require_tls(replace(config, command_center_url=server))
        asyncio.run(_serve(config, input_spec, output_spec, exit_after))
    except STARTUP_ERRORS as error:
        click.echo(f"voxd-node: {error}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:  # before the signal handlers are in place, while the models load
        sys.exit(130)


def _list_devices() -> None:
    try:
        click.echo(describe_devices())
    except NoSoundDevice as error:
        click.echo(f"voxd-node: {error}", err=True)
        sys.exit(1)


async def _serve(config: NodeConfig, input_spec: str | None, output_spec: str | None,
                 exit_after: float | None) -> None:
    """Run until SIGINT/SIGTERM or --exit-after, then close everything (the output WAV included)."""
    wake_word = WakeWordDetector(config.wake_word, config.wake_threshold)
    source = open_source(input_spec, config.input_device)
    try:
        sink = open_sink(output_spec, config.output_device)
    except BaseException:
        await source.close()
        raise
    tls = server_context(config.server_ca)
    client = CommandClient(config.command_center_url, config.node_id, config.api_key, tls)
    agent = asyncio.create_task(NodeAgent(config, source, sink, client, wake_word, tls).run(), name="agent")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    log.info("node %s listening for %r, command center %s", config.node_id, config.wake_word,
             config.command_center_url)
    if config.server_ca:
        log.info("trusting only voxd's authority %s", authority_fingerprint(config.server_ca))
    try:
        stopping = asyncio.create_task(stop.wait())
        await asyncio.wait({agent, stopping}, timeout=exit_after, return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        agent.cancel()
        await asyncio.gather(agent, return_exceptions=True)
        if not agent.cancelled():
            agent.result()  # the agent only ends by itself on a bug: let its traceback out
    finally:
        await client.close()
        await source.close()
        sink.close()
    log.info("stopped")
