"""DannyMac180/ACE's `Store`, without its embedding index.

Not theirs: their `store_adapter.py` also keeps a FAISS index of
sentence-transformer embeddings beside each bullet, which needs models
this test has no use for. Every method below does what theirs does with
the bullets table and the version (`ace/core/storage/store_adapter.py` at
a16ab50), through their own `BulletStore` and `DatabaseConnection`.
"""

from ace.core.schema import Bullet, Playbook

from .bullet_store import BulletStore
from .db import DatabaseConnection, init_schema


class Store:
    def __init__(self, db_path: str = "ace.db"):
        self.db = DatabaseConnection(f"sqlite://{db_path}")
        self.db.connect()
        init_schema(self.db)
        self.bullet_store = BulletStore(self.db)

    def save_bullet(self, bullet: Bullet) -> None:
        if self.bullet_store.get_bullet(bullet.id):
            self.bullet_store.update_bullet(bullet)
        else:
            self.bullet_store.create_bullet(bullet)

    def get_version(self) -> int:
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS playbook_version (version INTEGER PRIMARY KEY)"
        )
        rows = self.db.fetchall("SELECT version FROM playbook_version LIMIT 1")
        return rows[0][0] if rows else 0

    def set_version(self, version: int) -> None:
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS playbook_version (version INTEGER PRIMARY KEY)"
        )
        self.db.execute("DELETE FROM playbook_version")
        self.db.execute("INSERT INTO playbook_version (version) VALUES (?)", (version,))

    def load_playbook(self) -> Playbook:
        bullets = self.bullet_store.list_bullets(limit=10000)
        return Playbook(version=self.get_version(), bullets=bullets)

    def load_playbook_data(self, playbook: Playbook) -> None:
        for bullet in playbook.bullets:
            self.save_bullet(bullet)
        self.set_version(playbook.version)
