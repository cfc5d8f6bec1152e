"""Moves a module-level function or class to another module with rope, printing the
changes as JSON and writing nothing: resolve-pr's `move` for Python. Arguments: the
project root, the file (relative), the character offset of the name, the destination
module file (relative; it must exist). rope's own folder (.ropeproject, whose config.py
rope would run) is not used."""
import json
import sys

from rope.base import change as rope_change
from rope.base.project import Project
from rope.refactor.move import create_move


def flat(changes):
    if isinstance(changes, rope_change.ChangeSet):
        for item in changes.changes:
            yield from flat(item)
    else:
        yield changes


def main():
    root, file, offset, dest = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    project = Project(root, ropefolder=None)
    try:
        mover = create_move(project, project.get_resource(file), offset)
        changes = mover.get_changes(project.get_resource(dest))
        out = []
        for item in flat(changes):
            if isinstance(item, rope_change.ChangeContents):
                out.append({"kind": "edit", "path": item.resource.path, "contents": item.new_contents})
            elif isinstance(item, rope_change.MoveResource):
                out.append({"kind": "rename", "from": item.resource.path, "to": item.new_resource.path})
            elif isinstance(item, rope_change.CreateResource):
                out.append({"kind": "create", "path": item.resource.path})
            elif isinstance(item, rope_change.RemoveResource):
                out.append({"kind": "delete", "path": item.resource.path})
            else:
                raise TypeError("a change rope made that resolve-pr does not read: %s" % type(item).__name__)
        json.dump({"changes": out, "description": changes.description}, sys.stdout)
    except Exception as e:  # rope's refusals (RefactoringError and others) say why
        json.dump({"error": "%s: %s" % (type(e).__name__, e)}, sys.stdout)
    finally:
        project.close()


main()
