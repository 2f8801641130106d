"""Compile-only checks for GPUs this machine lacks: a script run in a child process whose MAX
driver presents ``count`` virtual sm_90 GPUs (virtual devices are chosen once per process, before
any device is used). Slow (each graph compiles in 0.5-2 min here), so opt-in."""

import subprocess
import sys
import textwrap


def run_on_virtual_gpus(script: str, count: int) -> str:
    """``script``'s stdout; fails the test with its stderr if it fails."""
    prelude = textwrap.dedent(f"""
        from max import driver
        driver.set_virtual_device_api("cuda")
        driver.set_virtual_device_target_arch("sm_90")
        driver.set_virtual_device_count({count})
    """)
    # MAX's runtime in virtual-device mode sometimes aborts while the interpreter shuts down
    # ("terminate called without an active exception"): leave once the script is done
    epilogue = "\nimport os, sys\nsys.stdout.flush()\nos._exit(0)\n"
    done = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(script) + epilogue], capture_output=True,
                          text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stdout
