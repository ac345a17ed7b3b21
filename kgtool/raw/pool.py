"""Worker processes for parsing and resolution, which must never outlive the run that started
them.

A run is killed from outside all the time (a CI cancel, a hook timeout, kill -9): the kernel
then ends the main process alone. Pool workers block on a queue whose write end they hold
themselves, so they would wait for ever, each holding whatever it inherited. Every worker
therefore watches its parent and exits when the parent is gone.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Literal

PR_SET_PDEATHSIG = 1  # linux/prctl.h
HELD = {signal.SIGINT, signal.SIGTERM}  # while the workers start
WATCH_SECONDS = 0.2
# A worker's youngest-generation threshold for the cyclic garbage collector (Python's is 700).
# Parsing and resolving make objects by the million and almost none in a cycle: refcounts
# free them, and a collection every 700 allocations only walked them (pi-mono's full build:
# a twentieth of its time in the two pools, with the freeze in ``_Pool.__enter__``).
WORKER_COLLECT_AFTER = 20_000


class _Pool(ProcessPoolExecutor):
    _froze = False  # whether this pool froze the process's objects as it started

    def __enter__(self) -> _Pool:
        # What this process holds as the workers fork (a full build's facts, the index) is
        # theirs to read: frozen, no collection walks it again, in a worker, where a walk
        # writes to each object and so copies every page of it, or here while they run.
        # Unless something froze objects already (a host that runs kgtool in its process):
        # unfreezing on exit would undo its freeze too.
        self._froze = gc.get_freeze_count() == 0
        if self._froze:
            gc.freeze()
        return self

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        if os.name != "posix":
            return super().submit(fn, *args, **kwargs)
        # A submit may start workers (the first starts them all when they fork). A signal
        # handled half way (SIGTERM, Ctrl-C) could leave a worker the pool does not know of,
        # which the interpreter's exit then waited for for ever (1 SIGTERM of 20 during a
        # diff): the signal waits until the submit is done.
        before = signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
        try:
            return super().submit(fn, *args, **kwargs)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)

    def __exit__(self, kind: object, value: object, traceback: object) -> Literal[False]:
        # A run ended early (Ctrl-C, SIGTERM, an error) drops the chunks no worker has
        # started: waiting for them would parse the rest of a large repository first.
        try:
            self.shutdown(wait=True, cancel_futures=kind is not None)
        finally:
            if self._froze:  # collected again from now on: a long-lived process must not leak
                gc.unfreeze()
        return False


def worker_pool(workers: int, start_method: str | None = None) -> ProcessPoolExecutor:
    """A process pool whose workers die with this process and leave Ctrl-C to it."""
    method = start_method or ("fork" if os.name == "posix" else "spawn")
    return _Pool(
        max_workers=workers,
        mp_context=multiprocessing.get_context(method),
        initializer=_start_worker,
        initargs=(os.getpid(),),
    )


def balanced_chunks(
    items: Iterable[str], weight: Callable[[str], int], count: int
) -> list[list[str]]:
    """``items`` in about ``count`` chunks of about equal weight, heaviest items first, each
    chunk sorted.

    Handed to a pool in this order, each worker takes the next chunk as it finishes one: the
    large files go while everything else is still queued, and the run ends on chunks of small
    files, so no worker is left with a long tail while the others idle (interleaved chunks of
    equal counts ended with one worker parsing alone for a fifth of the phase).
    """
    ordered = sorted(items, key=lambda item: (-weight(item), item))
    total = sum(weight(item) for item in ordered)
    target = max(1, total // max(1, count))
    chunks: list[list[str]] = []
    current: list[str] = []
    held = 0
    for item in ordered:
        current.append(item)
        held += weight(item)
        if held >= target:
            chunks.append(sorted(current))
            current, held = [], 0
    if current:
        chunks.append(sorted(current))
    return chunks


def _start_worker(parent: int) -> None:
    gc.set_threshold(WORKER_COLLECT_AFTER, *gc.get_threshold()[1:])
    _die_with_parent(parent)


def _die_with_parent(parent: int) -> None:
    # Ctrl-C reaches the whole process group: the parent handles it, a worker printing its own
    # KeyboardInterrupt traceback would only add noise.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A forked worker inherits the run's SIGTERM handler, which unwinds the run: a worker
    # told to stop (the pool ending it, a CI cancel sent to the group) just ends.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if os.name == "posix":
        signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD)  # held by the parent as it forked us
    if sys.platform.startswith("linux"):
        # The kernel kills us the moment the parent dies: no polling delay.
        import ctypes

        # No prctl (an unusual libc): the watch below still ends us, a moment later.
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if _parent_gone(parent):  # it died before the line above took effect
        os._exit(1)
    threading.Thread(target=_watch, args=(parent,), daemon=True).start()


def _watch(parent: int) -> None:
    while not _parent_gone(parent):
        time.sleep(WATCH_SECONDS)
    os._exit(1)


def _parent_gone(parent: int) -> bool:
    if os.name == "posix":
        return os.getppid() != parent  # an orphan is adopted by another process
    # Windows keeps reporting the dead parent's pid; ask multiprocessing, which holds a handle
    # to the parent process. Not tested here (no Windows machine): kept to these two lines.
    process = multiprocessing.parent_process()
    return process is not None and not process.is_alive()
