"""A worker process of `project.check`: `python -m iac_code.iac.terraform.worker` reads one
pickled request on stdin, (tf_dirs, options, jobs), checks the jobs' directories in order with
one parse cache, and writes the pickled results on stdout: [(diagnostics, skipped), ...].

A plain child process rather than `multiprocessing`: its spawn start method would import the
caller's `__main__` again, which `iac-code` cannot promise to keep side-effect free. The pickles
are exchanged only between this package's own processes.
"""

from __future__ import annotations

import pickle
import sys


def main() -> None:
    from iac_code.iac.discovery import Reader
    from iac_code.iac.terraform.project import _Run

    tf_dirs, options, jobs = pickle.load(sys.stdin.buffer)
    run = _Run(tf_dirs, Reader(), options)
    results = [run.directory(*job) for job in jobs]
    sys.stdout.buffer.write(pickle.dumps(results, protocol=pickle.HIGHEST_PROTOCOL))


if __name__ == "__main__":
    main()
