from drafter_lint.cli import main

main()
