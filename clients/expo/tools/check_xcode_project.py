"""Reads the Xcode project the config plugin wrote (test/plugin-ios.test.ts leaves a prebuilt ios/
folder behind) with mod-pbxproj, a reader nobody here wrote, and checks what Xcode would build from
it: the widget extension's target, its files found on disk through their groups, its Info.plist and
entitlements (read with plistlib), its build settings, and the app embedding and depending on it.

    .venv/bin/python clients/expo/tools/check_xcode_project.py <ios folder> <app target> <widget target> <bundle id> <app group>

Exits 1 with one line per failure."""
import os
import plistlib
import sys

from pbxproj import XcodeProject


def main():
    ios, app_name, widget_name, bundle_id, app_group = sys.argv[1:6]
    failures = []
    project = XcodeProject.load(os.path.join(ios, f"{app_name}.xcodeproj", "project.pbxproj"))
    objects = project.objects
    widget = project.get_target_by_name(widget_name)
    app = project.get_target_by_name(app_name)
    if widget is None or app is None:
        print(f"FAIL no target {widget_name if widget is None else app_name}")
        return 1
    if widget.productType != "com.apple.product-type.app-extension":
        failures.append(f"{widget_name} is a {widget.productType}, not an app extension")

    # Where each file reference is on disk: the path of every group above it, from the main group.
    paths = {}

    def walk(group_id, folder):
        group = objects[group_id]
        here = os.path.join(folder, group["path"]) if "path" in group else folder
        for child in group.children:
            item = objects[child]
            if item.isa == "PBXGroup":
                walk(child, here)
            else:
                paths[child] = os.path.join(here, item.path)

    root = objects[project.rootObject]
    walk(root.mainGroup, ios)

    phases = {objects[phase].isa: objects[phase] for phase in widget.buildPhases}
    if sorted(phases) != ["PBXFrameworksBuildPhase", "PBXResourcesBuildPhase", "PBXSourcesBuildPhase"]:
        failures.append(f"{widget_name}'s phases are {sorted(phases)}")
    sources = [paths.get(objects[built].fileRef) for built in phases["PBXSourcesBuildPhase"].files]
    if len(sources) != 1 or sources[0] is None or not os.path.isfile(sources[0]) or not sources[0].endswith(".swift"):
        failures.append(f"{widget_name} compiles {sources}, not its one Swift file on disk")

    for configuration in objects.get_configurations_on_targets(target_name=widget_name):
        settings = configuration.buildSettings
        where = f"{widget_name} {configuration.name}"
        if settings["PRODUCT_BUNDLE_IDENTIFIER"] != bundle_id:
            failures.append(f"{where}: PRODUCT_BUNDLE_IDENTIFIER {settings['PRODUCT_BUNDLE_IDENTIFIER']}")
        info_file = os.path.join(ios, settings["INFOPLIST_FILE"])
        entitlements_file = os.path.join(ios, settings["CODE_SIGN_ENTITLEMENTS"])
        if not os.path.isfile(info_file) or not os.path.isfile(entitlements_file):
            failures.append(f"{where}: {info_file} or {entitlements_file} is missing")
            continue
        with open(info_file, "rb") as handle:
            info = plistlib.load(handle)
        point = info.get("NSExtension", {}).get("NSExtensionPointIdentifier")
        if point != "com.apple.widgetkit-extension":
            failures.append(f"{where}: NSExtensionPointIdentifier is {point}")
        with open(entitlements_file, "rb") as handle:
            groups = plistlib.load(handle).get("com.apple.security.application-groups", [])
        if groups != [app_group]:
            failures.append(f"{where}: App Groups {groups}, not [{app_group}]")
        # The app's configuration of the same name: the extension runs where the app runs.
        app_setting = [c.buildSettings["IPHONEOS_DEPLOYMENT_TARGET"]
                       for c in objects.get_configurations_on_targets(target_name=app_name)
                       if c.name == configuration.name]
        if [settings["IPHONEOS_DEPLOYMENT_TARGET"]] != app_setting:
            failures.append(f"{where}: deployment target {settings['IPHONEOS_DEPLOYMENT_TARGET']}, the app's {app_setting}")

    # The app copies the product into PlugIns/ (dstSubfolderSpec 13) and depends on the target.
    copies = [objects[phase] for phase in app.buildPhases if objects[phase].isa == "PBXCopyFilesBuildPhase"]
    embeds = [phase for phase in copies if str(phase.dstSubfolderSpec) == "13"]
    embedded = [objects[built].fileRef for phase in embeds for built in phase.files]
    if embedded != [widget.productReference]:
        failures.append(f"{app_name} embeds {embedded} in PlugIns/, not {widget_name}'s product")
    product = objects[widget.productReference]
    if product.explicitFileType != "wrapper.app-extension" or product.sourceTree != "BUILT_PRODUCTS_DIR":
        failures.append(f"{widget_name}'s product is a {product.explicitFileType} in {product.sourceTree}")
    depends = [objects[dependency] for dependency in app.dependencies]
    if [dependency.target for dependency in depends] != [widget.get_id()]:
        failures.append(f"{app_name} depends on {[d.target for d in depends]}, not {widget_name}")
    elif objects[depends[0].targetProxy].remoteGlobalIDString != widget.get_id():
        failures.append(f"{app_name}'s dependency proxy points elsewhere")
    if widget.get_id() not in root.targets:
        failures.append(f"the project does not list {widget_name}")

    for failure in failures:
        print(f"FAIL {failure}")
    if not failures:
        print(f"PASS mod-pbxproj reads {widget_name} ({bundle_id}): its files, settings, and {app_name} embedding it")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
