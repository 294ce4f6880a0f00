"""Real documents of every supported type, written by the tests themselves."""

from __future__ import annotations

import json
from pathlib import Path


def minimal_pdf(pages: list[str]) -> bytes:
    """A valid PDF with one line of Helvetica text per page (computed xref offsets)."""
    objects: list[bytes] = []
    page_ids = [3 + 2 * i for i in range(len(pages))]
    font_id = 3 + 2 * len(pages)
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    kids = " ".join(f"{pid} 0 R" for pid in page_ids)
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    for i, text in enumerate(pages):
        content = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {page_ids[i] + 1} 0 R "
            f"/Resources << /Font << /F1 {font_id} 0 R >> >> >>".encode())
        objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
            .encode())
    return bytes(out)


def write_corpus(folder: Path) -> dict[str, Path]:
    """One file of each supported type, each about a different subject."""
    import docx

    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "md": folder / "volcanoes.md",
        "txt": folder / "tides.txt",
        "rst": folder / "glaciers.rst",
        "html": folder / "bees.html",
        "pdf": folder / "comets.pdf",
        "docx": folder / "coral.docx",
        "jsonl": folder / "records.jsonl",
    }
    files["md"].write_text("# Volcanoes\n\nMagma rises through the crust and erupts as lava "
                           "from volcanic vents.\n", encoding="utf-8")
    files["txt"].write_text("Tides\n\nOcean tides are caused by the gravitational pull of the "
                            "Moon and the Sun.\n", encoding="utf-8")
    files["rst"].write_text("Glaciers\n========\n\nGlaciers are slow rivers of ice that carve "
                            "U-shaped valleys.\n", encoding="utf-8")
    files["html"].write_text(
        "<html><head><title>Honey bees</title><script>alert('x')</script></head><body>"
        "<article><h1>Honey bees</h1><p>Honey bees communicate the direction of flowers with a "
        "waggle dance performed inside the hive.</p><p>Worker bees forage for nectar and "
        "pollen during the day.</p></article></body></html>", encoding="utf-8")
    files["pdf"].write_bytes(minimal_pdf(["Comets are icy bodies from the Oort cloud.",
                                          "A comet tail always points away from the Sun."]))
    document = docx.Document()
    document.core_properties.title = "Coral reefs"
    document.add_paragraph("Coral reefs are built by colonies of tiny polyps.")
    document.add_paragraph("Rising sea temperatures cause coral bleaching.")
    document.save(files["docx"])
    records = [
        {"id": "rec-1", "title": "Saturn", "text": "Saturn has the most prominent ring system."},
        {"id": "rec-2", "title": "Mars", "text": "Mars is called the red planet because of iron oxide."},
    ]
    files["jsonl"].write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return files
