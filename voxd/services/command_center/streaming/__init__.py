"""Streamed turns (issue 24; docs/api.md, Streamed turns): a node streams a turn's audio over a
WebSocket, the command center decides where it ends and answers sentence by sentence."""
