from hsd_cli.cli import main

main()
