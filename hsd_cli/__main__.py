from hsd_cli.cli.app import main

main()
