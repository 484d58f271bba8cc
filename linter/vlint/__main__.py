from __future__ import annotations

import sys

from vlint.cli import main

sys.exit(main())
