"""Notifications service (7712): device tokens, sends pushed through the relay with nothing lost,
and each user's inbox (docs/notifications.md).

Built like the recipes service: `app.py` gathers the routes of `devices.py`, `sending.py` and
`inbox.py`; `migrations.py` is the database's history; `outbox.py` is the durable record of every
accepted send, which `delivery.py` works through in the background (`relay_client.py` speaks the
relay's API, `receipts.py` applies Expo's later verdicts, `speaking.py` asks the command center to
say a send aloud).
"""
