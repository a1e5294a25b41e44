"""The notifications service's database, one numbered migration at a time (docs/architecture.md,
Storage): append a new script for every change, never edit one that has shipped.

`notifications` with `deliveries` is the outbox: an accepted send and one row per (send, token),
written in the transaction that answers 202; a delivery stays `pending` until the relay has
answered for it (docs/notifications.md, Delivery). Times the worker compares (`due`, `accepted_at`)
are epoch seconds; times clients see are ISO 8601 UTC text.
"""

from __future__ import annotations

MIGRATIONS: list[str] = [
    # 1: device tokens, sends and their deliveries (the outbox), inbox items (issue 21 §1, §2, §4).
    """
    CREATE TABLE device_tokens (
        seq INTEGER PRIMARY KEY,
        user_id TEXT NOT NULL,
        token TEXT NOT NULL,
        platform TEXT NOT NULL,
        device_name TEXT,
        active INTEGER NOT NULL DEFAULT 1,
        deactivated_reason TEXT,
        created_at TEXT NOT NULL,
        UNIQUE (user_id, token)
    );
    CREATE INDEX device_tokens_by_token ON device_tokens (token);
    CREATE TABLE notifications (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        target TEXT NOT NULL,
        household_id TEXT,
        title TEXT NOT NULL,
        body TEXT NOT NULL,
        data TEXT NOT NULL,
        priority TEXT NOT NULL,
        category TEXT,
        actions TEXT NOT NULL,
        inbox INTEGER NOT NULL,
        speak TEXT NOT NULL,
        speak_attempts INTEGER NOT NULL DEFAULT 0,
        speak_due REAL,
        idempotency_key TEXT,
        accepted_at REAL NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE INDEX notifications_by_key ON notifications (idempotency_key, accepted_at)
        WHERE idempotency_key IS NOT NULL;
    CREATE INDEX notifications_to_speak ON notifications (speak_due) WHERE speak = 'pending';
    CREATE TABLE recipients (
        user_id TEXT NOT NULL,
        notification_seq INTEGER NOT NULL REFERENCES notifications (seq) ON DELETE CASCADE,
        PRIMARY KEY (user_id, notification_seq)
    ) WITHOUT ROWID;
    CREATE TABLE deliveries (
        seq INTEGER PRIMARY KEY,
        notification_seq INTEGER NOT NULL REFERENCES notifications (seq) ON DELETE CASCADE,
        token_seq INTEGER NOT NULL,
        state TEXT NOT NULL,
        error TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        due REAL NOT NULL,
        receipt_id TEXT,
        receipt_due REAL,
        updated_at TEXT NOT NULL,
        UNIQUE (notification_seq, token_seq)
    );
    CREATE INDEX deliveries_due ON deliveries (due) WHERE state = 'pending';
    CREATE INDEX deliveries_receipts ON deliveries (receipt_due) WHERE receipt_id IS NOT NULL;
    CREATE TABLE inbox_items (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        user_id TEXT NOT NULL,
        notification_id TEXT,
        title TEXT NOT NULL,
        body TEXT NOT NULL,
        category TEXT,
        data TEXT NOT NULL,
        read_at TEXT,
        created_at TEXT NOT NULL
    );
    CREATE INDEX inbox_by_user ON inbox_items (user_id, seq);
    CREATE INDEX inbox_unread ON inbox_items (user_id, seq) WHERE read_at IS NULL;
    """,
]
