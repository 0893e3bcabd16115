"""Rows of an ace-playbook database made and read through its own models.

`python rows.py seed`: adds bullets as ace-playbook's code adds them, a
session of PlaybookBullet objects. `python rows.py dump`: loads every
bullet and journal entry through the models (a value SQLAlchemy cannot
load as the model's type fails here) and prints them as JSON, with each
bullet's hash as ace-playbook's `compute_bullet_hash` computes it
(ace/curator/curator_utils.py, transcribed). The database is
ACE_PLAYBOOK_DB, a SQLAlchemy URL.
"""

import hashlib
import json
import os
import sys
from datetime import datetime

from sqlalchemy import create_engine
from sqlalchemy.orm import Session

from models import DiffJournalEntry, PlaybookBullet, PlaybookStage

engine = create_engine(os.environ["ACE_PLAYBOOK_DB"])


def compute_bullet_hash(bullet) -> str:
    stable_state = {
        "id": bullet.id,
        "domain_id": bullet.domain_id,
        "content": bullet.content,
        "section": bullet.section,
        "helpful_count": bullet.helpful_count,
        "harmful_count": bullet.harmful_count,
        "tags": sorted(bullet.tags),
    }
    canonical_json = json.dumps(stable_state, sort_keys=True)
    return hashlib.sha256(canonical_json.encode("utf-8")).hexdigest()


def seed() -> None:
    at = datetime(2026, 3, 2, 10, 15, 0, 123456)
    with Session(engine) as s:
        s.add_all(
            [
                PlaybookBullet(
                    domain_id="support",
                    content="Ask for the order number before anything else",
                    section="Helpful",
                    helpful_count=4,
                    harmful_count=0,
                    tags=["triage", "orders"],
                    embedding=[0.125] * 384,
                    created_at=at,
                    last_used_at=at,
                    stage=PlaybookStage.PROD,
                ),
                PlaybookBullet(
                    domain_id="support",
                    content="Never promise a refund before the warehouse confirms the return",
                    section="Harmful",
                    helpful_count=0,
                    harmful_count=3,
                    tags=["refunds"],
                    embedding=[0.5] * 384,
                    stage=PlaybookStage.PROD,
                ),
                PlaybookBullet(
                    domain_id="support",
                    content="Quote the shipping policy in the customer's language",
                    section="Neutral",
                    helpful_count=1,
                    harmful_count=1,
                    tags=[],
                    embedding=[],
                    stage=PlaybookStage.PROD,
                ),
            ]
        )
        s.commit()


def dump() -> None:
    with Session(engine) as s:
        bullets = s.query(PlaybookBullet).order_by(PlaybookBullet.created_at, PlaybookBullet.id)
        journal = s.query(DiffJournalEntry).order_by(DiffJournalEntry.timestamp)
        out = {
            "bullets": [
                {
                    "id": b.id,
                    "domain_id": b.domain_id,
                    "content": b.content,
                    "section": b.section,
                    "helpful_count": b.helpful_count,
                    "harmful_count": b.harmful_count,
                    "tags": b.tags,
                    "embedding": len(b.embedding),
                    "stage": b.stage.name,
                    "created_at": b.created_at.isoformat(),
                    "last_used_at": b.last_used_at.isoformat(),
                    "hash": compute_bullet_hash(b),
                }
                for b in bullets
            ],
            "journal": [
                {
                    "bullet_id": j.bullet_id,
                    "domain_id": j.domain_id,
                    "operation": j.operation.name,
                    "before_hash": j.before_hash,
                    "after_hash": j.after_hash,
                    "stage": j.stage,
                    "timestamp": j.timestamp.isoformat(),
                }
                for j in journal
            ],
        }
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")


{"seed": seed, "dump": dump}[sys.argv[1]]()
