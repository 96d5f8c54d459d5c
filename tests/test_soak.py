"""A shortened soak (tests/soak.py) in `make test`: bounds on memory growth
only; the timings it prints are for reading."""
from soak import soak


def test_short_soak_memory_stays_bounded():
    f = soak(cells=300)
    start, end = f["start"], f["end"]
    # MLX memory: every cell's tensors are dropped; nothing may accumulate.
    assert end["mlx_active_mb"] - start["mlx_active_mb"] < 8, f
    # The wire process holds no cell state.
    assert end["kernel_rss_mb"] - start["kernel_rss_mb"] < 32, f
    # The session keeps each cell's compiled code (yaegi), so it grows a
    # little per cell; 300 cells must stay well under this.
    assert end["session_rss_mb"] - start["session_rss_mb"] < 150, f
