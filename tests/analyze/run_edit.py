"""Damaged copies of a good run, for the bad-input checks of test_analyze.py
and test_watch.py: breaker(good, tmp) gives broken(name, edit), which copies
the run to tmp/bad-NAME and applies edit(folder) to the copy."""
import os
import shutil


def breaker(good, tmp):
    def broken(name, edit):
        d = os.path.join(tmp, "bad-" + name)
        shutil.copytree(good, d)
        edit(d)
        return d
    return broken


def rewrite(path, fn):
    """Replaces the text of path with fn(text)."""
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(fn(text))
