"""docs/make_images.py writes the pictures docs/pictures.md shows."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from PIL import Image

from domino_env.core.config import MexicanTrainConfig, line_from_preset
from domino_env.render_image import image_size

ROOT = Path(__file__).resolve().parents[2]
SIZES = {
    "mexican_train": image_size(MexicanTrainConfig()),
    "mexican_train_all_hands": image_size(MexicanTrainConfig()),
    **{game: image_size(line_from_preset(game)) for game in ("block", "draw", "cuban")},
}


def test_the_script_writes_one_picture_per_game(tmp_path):
    out = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "make_images.py"), "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    for name, (height, width) in SIZES.items():
        with Image.open(tmp_path / f"{name}.png") as img:
            assert img.size == (width, height) and img.mode == "RGB"
        # the committed picture is the one the script draws (same size; same pixels with the
        # Pillow it was made with)
        with Image.open(ROOT / "docs" / "images" / f"{name}.png") as committed:
            assert committed.size == (width, height)


def test_pictures_page_shows_every_picture():
    page = (ROOT / "docs/pictures.md").read_text()
    shown = set(re.findall(r"\]\(images/([\w]+)\.png\)", page))
    assert shown == set(SIZES)
    assert "python docs/make_images.py" in page


def test_make_images_refuses_a_file_as_out_in_one_line(tmp_path):
    """``--out`` naming a file was a FileExistsError traceback."""
    target = tmp_path / "notes.txt"
    target.write_text("keep")
    out = subprocess.run([sys.executable, str(ROOT / "docs" / "make_images.py"), "--out", str(target)],
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert out.returncode == 2 and f"--out {target} is a file; give a folder" in out.stderr
    assert "Traceback" not in out.stderr and target.read_text() == "keep"


#: The Pillow (and its FreeType) that drew docs/images: text is drawn pixel for pixel alike only
#: with the same font rasteriser.
PICTURES_PILLOW = ("13.0.0", "2.14.3")


def test_the_committed_pictures_are_the_pixels_the_code_draws(tmp_path):
    """docs/images/*.png are the pictures make_images.py draws now, pixel for pixel with the
    Pillow that drew them (with another, up to the text's pixels: 2.2% of a picture at most). A
    renderer change that moved a badge, a pip, a row or a colour passed every other test (they
    check sizes and that pictures differ), and left the pictures page showing pictures the code no
    longer draws: run ``python docs/make_images.py``."""
    import importlib.util

    import numpy as np
    import PIL
    from PIL import features

    exact = (PIL.__version__, features.version("freetype2")) == PICTURES_PILLOW
    spec = importlib.util.spec_from_file_location("make_images", ROOT / "docs" / "make_images.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for path in module.make_images(tmp_path):
        with Image.open(path) as drawn, Image.open(ROOT / "docs" / "images" / path.name) as committed:
            a, b = np.asarray(drawn.convert("RGB")), np.asarray(committed.convert("RGB"))
            assert a.shape == b.shape, path.name
            differ = np.argwhere((a != b).any(axis=-1))
            # another rasteriser draws the glyphs otherwise: then a layout change (a row, a tile)
            # is caught as more pixels than all the text covers
            most = 0 if exact else 0.05 * a.shape[0] * a.shape[1]
            assert len(differ) <= most, f"{path.name}: {len(differ)} pixels differ, first at (y, x) = {tuple(differ[0])}"
