"""A small repository for the read path: ambiguous and unresolved calls, a cycle, a subclass in
another community, and two playbooks (one refused)."""

from __future__ import annotations

from conftest import Repo
from playbook_helpers import add_playbook

# ``max_candidates: 2``: a call to ``save`` on an unknown receiver matches three methods, more
# than that, so it is an unresolved call site; ``load`` matches two, so it is AMBIGUOUS.
READ_FILES = {
    ".kgtool.yaml": "max_candidates: 2\n",
    "app/__init__.py": "",
    "app/store.py": '''\
        """Where records are kept."""


        class Base:
            def save(self):
                return 1


        class Store(Base):
            def save(self):
                return self.flush()

            def flush(self):
                return self.save()

            def load(self):
                return 3
        ''',
    "app/cache.py": """\
        class Cache:
            def save(self):
                return 4

            def load(self):
                return 5
        """,
    "app/disk.py": """\
        class Disk:
            def save(self):
                return 6
        """,
    "app/api.py": """\
        from app.store import Store


        def handler():
            store = Store()
            return store.save()


        def sync(thing):
            thing.load()
            return thing.save()
        """,
    "app/cli.py": """\
        from app.api import handler


        def main():
            return handler()


        def ping():
            return pong()


        def pong():
            return ping()
        """,
    "report/__init__.py": "",
    "report/format.py": """\
        def cell(value):
            return str(value)


        def row(values):
            return " | ".join(cell(v) for v in values)


        def table(rows):
            return "\\n".join(row(r) for r in rows)
        """,
    "report/render.py": """\
        from app.store import Store
        from report.format import cell, row, table


        class Page(Store):
            def save(self):
                return table([row([cell(1)]), row([cell(2)])])


        def render(rows):
            return table(rows) + row(rows[0]) + cell(rows[0][0])
        """,
    "docs/guide.md": "# Guide\n\nRun `app.cli.main`.\n",
}


def build_read_repo(repo: Repo) -> Repo:
    """The files above, a good and a refused playbook, committed, with ``.kg/`` built."""
    repo.write_files(READ_FILES)
    add_playbook(repo, "save-records", ["app/store.py::Store.save", "app/api.py"], concepts=["c2"])
    add_playbook(repo, "old-cache", ["app/cache.py::Cache.evict"])
    return repo.build({})
