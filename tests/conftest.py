"""Make tests/helpers importable from every test folder (shared test-only helpers)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "helpers"))
