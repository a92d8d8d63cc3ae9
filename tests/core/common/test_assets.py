import pytest

from core.common import ASSETS_ROOT, asset_dir


def test_asset_dir_is_the_key_under_the_repository_assets():
    assert asset_dir("geto_lp") == ASSETS_ROOT / "geto_lp"
    assert (ASSETS_ROOT / "README.md").is_file()  # the real folder, not a guess


@pytest.mark.parametrize("bad", ["", "../etc", "Geto", "a/b", "1x", None])
def test_a_bad_key_is_refused_naming_the_field(bad):
    with pytest.raises(ValueError, match="^key: .*allowed lower-case letters"):
        asset_dir(bad)
