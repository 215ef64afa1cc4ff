#!/usr/bin/python3
"""The README's screenshot of the bundled model (assets/readme/tiny_induction.png): starts attnviz under Xvfb
(tests/gui/e2e_test.py's AppSession) on the bundled model (`--model tiny`) and a sentence said twice, opens layer 1
head 0 from the Overview, shows layer 1's heads as a grid and saves the window as PNG.
usage: /usr/bin/python3 bench/tiny_induction_shot.py APP OUT.png   (APP: an installed attnviz, so the Model panel
shows an installed path, e.g. cmake --install build --prefix /opt/attnviz; /opt/attnviz/bin/attnviz)"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "gui"))
sys.path.insert(0, HERE)
import e2e_test  # noqa: E402
from long_zoom_shot import shoot  # noqa: E402

SENTENCE = "Grace sent seven purple kites over the quiet harbor at dawn."


def main():
    app, out = sys.argv[1], sys.argv[2]
    e2e_test.APP = os.path.abspath(app)

    def drive(s):
        s.wait_for(lambda w: "overview.map.1.0" in w["widgets"], timeout=120, what="the overview")
        s.click("overview.map.1.0")
        s.wait_for(lambda w: w["widgets"]["model.layer"]["value"] == 1 and w["fields"]["selected_head"] == 0,
                   what="layer 1 head 0")
        s.click("heads.view_grid")
        s.wait_for(lambda w: w["widgets"]["heads.view_grid"]["value"], what="the grid")

    shoot(["--no-settings", "--model", "tiny", "--text", SENTENCE + " " + SENTENCE], drive, out)


if __name__ == "__main__":
    main()
