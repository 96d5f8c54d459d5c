"""Rich output through a real Jupyter client: display_data,
update_display_data, clear_output, and plots as PNG images."""
import base64
import struct
import zlib

import pytest
from jupyter_client.manager import start_new_kernel

from test_kernel import TIMEOUT, of_type, run


@pytest.fixture(scope="module")
def kc():
    km, client = start_new_kernel(kernel_name="emily", startup_timeout=TIMEOUT)
    content, _ = run(client, 'import (\n"github.com/emily-go/emily/display"\n"github.com/emily-go/emily/plot"\n)')
    assert content["status"] == "ok", content
    yield client
    client.stop_channels()
    km.shutdown_kernel(now=False)


def decode_png(b64):
    """Decodes a PNG fully (chunks, CRCs, zlib stream, scanline count) and
    returns its (width, height)."""
    data = base64.b64decode(b64)
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG signature"
    pos, idat, width = 8, b"", None
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        (crc,) = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        assert zlib.crc32(kind + body) == crc, f"bad CRC in {kind}"
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + n
    assert width is not None, "no IHDR chunk"
    raw = zlib.decompress(idat)
    row = 1 + (width * channels * depth + 7) // 8  # filter byte + pixels
    assert len(raw) == height * row, f"{len(raw)} bytes of pixels for {width}x{height}"
    return width, height


def test_plot_cell_is_an_inline_png_of_the_expected_size(kc):
    content, msgs = run(kc, "plot.Line(emily.Arange(10), emily.Mul(emily.Arange(10), emily.Arange(10)))")
    assert content["status"] == "ok", content
    (result,) = of_type(msgs, "execute_result")
    assert decode_png(result["data"]["image/png"]) == (640, 480)
    assert result["data"]["text/plain"].startswith("<640×480 PNG")


def test_display_show_publishes_display_data_in_order(kc):
    content, msgs = run(kc, """fmt.Println("first")
display.Show(plot.Hist(emily.FromSlice([]float32{1, 2, 2, 3, 3, 3}), 3).Size(320, 200))
display.Show(display.Markdown("**done**"))""")
    assert content["status"] == "ok", content
    kinds = [m["msg_type"] for m in msgs if m["msg_type"] in ("stream", "display_data")]
    assert kinds == ["stream", "display_data", "display_data"], kinds
    shown = of_type(msgs, "display_data")
    assert decode_png(shown[0]["data"]["image/png"]) == (320, 200)
    assert shown[1]["data"]["text/markdown"] == "**done**"


def test_updatable_display_and_clear_output(kc):
    content, msgs = run(kc, """h := display.Updatable(display.HTML("<p>step 0</p>"))
for i := 1; i <= 2; i++ { h.Update(display.HTML(fmt.Sprintf("<p>step %d</p>", i))) }
display.Clear(true)""")
    assert content["status"] == "ok", content
    (first,) = of_type(msgs, "display_data")
    updates = of_type(msgs, "update_display_data")
    ident = first["transient"]["display_id"]
    assert ident
    assert [u["data"]["text/html"] for u in updates] == ["<p>step 1</p>", "<p>step 2</p>"]
    assert all(u["transient"]["display_id"] == ident for u in updates)
    assert of_type(msgs, "clear_output") == [{"wait": True}]


def test_json_and_displayer_types(kc):
    content, msgs = run(kc, """type badge struct{ n int }
func (b badge) MIMEBundle() map[string]any {
	return map[string]any{"text/html": fmt.Sprintf("<span>%d</span>", b.n), "text/plain": "badge"}
}
j, _ := display.JSON(map[string]any{"a": []int{1, 2}})
display.Show(j)
badge{7}""")
    assert content["status"] == "ok", content
    (shown,) = of_type(msgs, "display_data")
    assert shown["data"]["application/json"] == {"a": [1, 2]}
    (result,) = of_type(msgs, "execute_result")
    assert result["data"] == {"text/html": "<span>7</span>", "text/plain": "badge"}
