"""ace-playbook's initial schema, revision 4c0c6073b96e.

Transcribed from jmanhype/ace-playbook (commit eaa1f01),
alembic/versions/4c0c6073b96e_initial_schema_with_all_tables.py: the same
tables, columns, types, nullability, keys, enums and indexes, without the
column comments. CI cannot reach GitHub, and ace-playbook is not on PyPI.
"""

import sqlalchemy as sa
from alembic import op

revision = "4c0c6073b96e"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "diff_journal_entries",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("task_id", sa.String(length=36), nullable=False),
        sa.Column("domain_id", sa.String(length=64), nullable=False),
        sa.Column("bullet_id", sa.String(length=36), nullable=False),
        sa.Column(
            "operation",
            sa.Enum(
                "ADD_NEW",
                "INCREMENT_HELPFUL",
                "INCREMENT_HARMFUL",
                "MERGE_DUPLICATES",
                "QUARANTINE",
                name="mergeoperation",
            ),
            nullable=False,
        ),
        sa.Column("before_hash", sa.String(length=64), nullable=True),
        sa.Column("after_hash", sa.String(length=64), nullable=True),
        sa.Column("before_state", sa.JSON(), nullable=True),
        sa.Column("after_state", sa.JSON(), nullable=True),
        sa.Column("similarity_score", sa.JSON(), nullable=True),
        sa.Column("metadata", sa.JSON(), nullable=True),
        sa.Column("timestamp", sa.DateTime(), nullable=False),
        sa.Column("stage", sa.String(length=32), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_diff_journal_entries")),
    )
    for column in ["bullet_id", "domain_id", "operation", "stage", "task_id", "timestamp"]:
        op.create_index(
            op.f(f"ix_diff_journal_entries_{column}"), "diff_journal_entries", [column]
        )
    op.create_table(
        "playbook_bullets",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("domain_id", sa.String(length=64), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("section", sa.String(length=32), nullable=False),
        sa.Column("helpful_count", sa.Integer(), nullable=False),
        sa.Column("harmful_count", sa.Integer(), nullable=False),
        sa.Column("tags", sa.JSON(), nullable=False),
        sa.Column("embedding", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("last_used_at", sa.DateTime(), nullable=False),
        sa.Column(
            "stage",
            sa.Enum("SHADOW", "STAGING", "PROD", "QUARANTINED", name="playbookstage"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_playbook_bullets")),
    )
    op.create_index("idx_domain_section", "playbook_bullets", ["domain_id", "section"])
    op.create_index("idx_domain_stage", "playbook_bullets", ["domain_id", "stage"])
    for column in ["domain_id", "section", "stage"]:
        op.create_index(op.f(f"ix_playbook_bullets_{column}"), "playbook_bullets", [column])
    op.create_table(
        "tasks",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("domain_id", sa.String(length=64), nullable=False),
        sa.Column("prompt", sa.Text(), nullable=False),
        sa.Column("domain", sa.String(length=64), nullable=False),
        sa.Column("ground_truth", sa.Text(), nullable=True),
        sa.Column("metadata_json", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tasks")),
    )
    op.create_table(
        "reflections",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("task_id", sa.String(length=36), nullable=False),
        sa.Column("analysis_summary", sa.Text(), nullable=False),
        sa.Column("confidence_score", sa.Float(), nullable=False),
        sa.Column("requires_human_review", sa.JSON(), nullable=False),
        sa.Column("feedback_types_used", sa.JSON(), nullable=False),
        sa.Column("referenced_steps", sa.JSON(), nullable=False),
        sa.Column("contradicts_existing", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["task_id"], ["tasks.id"], name=op.f("fk_reflections_task_id_tasks")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reflections")),
    )
    op.create_table(
        "task_outputs",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("task_id", sa.String(length=36), nullable=False),
        sa.Column("reasoning_trace", sa.JSON(), nullable=False),
        sa.Column("answer", sa.Text(), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("bullets_referenced", sa.JSON(), nullable=False),
        sa.Column("latency_ms", sa.Integer(), nullable=False),
        sa.Column("token_count", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("test_results", sa.JSON(), nullable=True),
        sa.Column("error_messages", sa.JSON(), nullable=True),
        sa.Column("performance_metrics", sa.JSON(), nullable=True),
        sa.Column("environment_feedback", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(
            ["task_id"], ["tasks.id"], name=op.f("fk_task_outputs_task_id_tasks")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_task_outputs")),
    )
    op.create_table(
        "insight_candidates",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("reflection_id", sa.String(length=36), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("section", sa.String(length=32), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("rationale", sa.Text(), nullable=False),
        sa.Column("tags", sa.JSON(), nullable=False),
        sa.Column("referenced_steps", sa.JSON(), nullable=False),
        sa.Column("embedding", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["reflection_id"],
            ["reflections.id"],
            name=op.f("fk_insight_candidates_reflection_id_reflections"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_insight_candidates")),
    )
    op.create_index(
        op.f("ix_insight_candidates_reflection_id"), "insight_candidates", ["reflection_id"]
    )
