from kgtool.cli import main

raise SystemExit(main())
