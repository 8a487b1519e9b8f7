# The user's own sitecustomize: syncscope's must still let it run.
import sys

print("user sitecustomize ran", file=sys.stderr)
