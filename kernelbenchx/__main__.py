from kernelbenchx.cli import main

main()
