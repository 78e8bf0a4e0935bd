from __future__ import annotations

import sys

from bench.load.run import main

sys.exit(main())
