"""ace-playbook's PlaybookBullet and DiffJournalEntry models.

Transcribed from jmanhype/ace-playbook (commit eaa1f01), ace/models/base.py,
playbook.py and journal.py: the same declarative base with its naming
convention, tables, columns, types, defaults and enums (stored by member
name, as SQLAlchemy's Enum stores them), without the docstrings and column
comments.
"""

import enum
import uuid
from datetime import datetime

from sqlalchemy import JSON, Column, DateTime, Enum, Index, Integer, MetaData, String, Text
from sqlalchemy.orm import declarative_base

naming_convention = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
Base = declarative_base(metadata=MetaData(naming_convention=naming_convention))


class PlaybookStage(str, enum.Enum):
    SHADOW = "shadow"
    STAGING = "staging"
    PROD = "prod"
    QUARANTINED = "quarantined"


class PlaybookBullet(Base):
    __tablename__ = "playbook_bullets"

    id = Column(String(36), primary_key=True, default=lambda: str(uuid.uuid4()))
    domain_id = Column(String(64), nullable=False, index=True)
    content = Column(Text, nullable=False)
    section = Column(String(32), nullable=False, index=True)
    helpful_count = Column(Integer, nullable=False, default=0)
    harmful_count = Column(Integer, nullable=False, default=0)
    tags = Column(JSON, nullable=False)
    embedding = Column(JSON, nullable=False)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)
    last_used_at = Column(
        DateTime, nullable=False, default=datetime.utcnow, onupdate=datetime.utcnow
    )
    stage = Column(
        Enum(PlaybookStage), nullable=False, default=PlaybookStage.SHADOW, index=True
    )

    __table_args__ = (
        Index("idx_domain_stage", "domain_id", "stage"),
        Index("idx_domain_section", "domain_id", "section"),
    )


class MergeOperation(str, enum.Enum):
    ADD_NEW = "add"
    INCREMENT_HELPFUL = "increment_helpful"
    INCREMENT_HARMFUL = "increment_harmful"
    MERGE_DUPLICATES = "merge"
    QUARANTINE = "quarantine"


class DiffJournalEntry(Base):
    __tablename__ = "diff_journal_entries"

    id = Column(String(36), primary_key=True, default=lambda: str(uuid.uuid4()))
    task_id = Column(String(36), nullable=False, index=True)
    domain_id = Column(String(64), nullable=False, index=True)
    bullet_id = Column(String(36), nullable=False, index=True)
    operation = Column(Enum(MergeOperation), nullable=False, index=True)
    before_hash = Column(String(64), nullable=True)
    after_hash = Column(String(64), nullable=True)
    before_state = Column(JSON, nullable=True)
    after_state = Column(JSON, nullable=True)
    similarity_score = Column(JSON, nullable=True)
    metadata_dict = Column("metadata", JSON, nullable=True)
    timestamp = Column(DateTime, nullable=False, default=datetime.utcnow, index=True)
    stage = Column(String(32), nullable=True, index=True)
