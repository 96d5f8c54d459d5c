"""`make lab`: the kernel goes into the venv's Jupyter (where its own
`jupyter` finds it, logos included) and JupyterLab starts on notebooks/.
JupyterLab itself is replaced by echo here; the browser test runs the real
one against the same kernelspec."""
import json
import os
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"


def test_make_lab_installs_into_the_venv_and_opens_notebooks(tmp_path):
    prefix = tmp_path / "venv"
    # -o: build and venv are done (make test builds first); what is
    # checked is what lab itself does.
    out = subprocess.run(
        ["make", "-s", "-o", "build", "-o", "venv", "lab", f"LAB_PREFIX={prefix}", "JUPYTER_LAB=echo LAB"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "--ServerApp.root_dir=notebooks" in out.stdout.split("LAB", 1)[1], out.stdout
    spec_dir = prefix / "share" / "jupyter" / "kernels" / "emily"
    for name in ("kernel.json", "logo-32x32.png", "logo-64x64.png", "logo-svg.svg"):
        assert (spec_dir / name).is_file(), f"make lab did not install {name}: {sorted(spec_dir.iterdir())}"
    # The venv has JupyterLab, and its jupyter finds the kernel there.
    assert (VENV / "bin" / "jupyter-lab").exists(), "JupyterLab is not in .venv (tests/requirements.txt)"
    env = dict(os.environ, JUPYTER_PATH=str(prefix / "share" / "jupyter"))
    specs = subprocess.run([str(VENV / "bin" / "jupyter"), "kernelspec", "list", "--json"],
                           env=env, capture_output=True, text=True, check=True, timeout=60)
    found = json.loads(specs.stdout)["kernelspecs"]
    assert found["emily"]["resource_dir"] == str(spec_dir), found
