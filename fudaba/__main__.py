from fudaba.cli import main

raise SystemExit(main())
