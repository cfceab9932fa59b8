// Adds the widget extension's target to the app's Xcode project, as Xcode's "Widget Extension"
// template does: the target (product type app-extension) with its folder's files, its build
// configurations, an "Embed Foundation Extensions" phase in the app that copies the `.appex` into
// PlugIns/, and the app's dependency on the target. It edits the parsed project (`hash`) the way
// the `xcode` package holds it (types/xcode.d.ts), so the package's writer prints it unchanged.
import type { CommentedValue, PBXDictionary, PBXObject, PBXProjectHash, PBXSection, PBXValue, XcodeProject } from 'xcode';
import { DropTrackPluginError } from './transforms';
import { widgetSwiftFiles, type WidgetTarget } from './widget';

/** A string as the project file holds it: quoted unless it is a plain word or path. */
export function quoted(text: string): string {
  return /^[A-Za-z0-9_./]+$/.test(text) ? text : `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** A scalar of the project file as text: quotes removed, numbers printed. */
export function unquoted(value: PBXValue | undefined): string | undefined {
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') return undefined;
  const inner = /^"([\s\S]*)"$/.exec(value);
  return inner === null ? value : inner[1]!.replace(/\\"/g, '"').replace(/\\\\/g, '\\');
}

const isObject = (value: PBXObject | string | undefined): value is PBXObject =>
  typeof value === 'object' && value !== null;

/** A section of `objects`, made if the project has none yet (a new project has no copy phase). */
function section(hash: PBXProjectHash, isa: string): PBXSection {
  const objects = hash.project.objects;
  objects[isa] ??= {};
  return objects[isa]!;
}

/** An object by id, of the expected kind, or a clear error: the project is not what prebuild makes. */
function object(hash: PBXProjectHash, isa: string, id: string | undefined): PBXObject {
  const found = id === undefined ? undefined : hash.project.objects[isa]?.[id];
  if (!isObject(found)) {
    throw new DropTrackPluginError(
      `the Xcode project has no ${isa} ${id ?? '(none named)'}; run \`expo prebuild --clean\` to regenerate ios/`,
    );
  }
  return found;
}

/** The id of each entry of a list such as `targets` or `children`. */
function ids(list: PBXValue | undefined): string[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((entry) => {
    if (typeof entry === 'string') return [entry];
    if (typeof entry === 'object' && !Array.isArray(entry) && typeof entry.value === 'string') return [entry.value];
    return [];
  });
}

function listOf(owner: PBXDictionary, key: string): PBXValue[] {
  const list = owner[key];
  if (Array.isArray(list)) return list;
  const made: PBXValue[] = [];
  owner[key] = made;
  return made;
}

const entry = (value: string, comment: string): CommentedValue => ({ value, comment });

/** Adds an object under a new id, with the comment the writer prints beside it. */
function add(project: XcodeProject, isa: string, body: PBXDictionary, comment: string): string {
  const id = project.generateUuid();
  const target = section(project.hash, isa);
  target[id] = { isa, ...body };
  target[`${id}_comment`] = comment;
  return id;
}

/** The project's app target: the application target named as the project, else the first one. */
function appTarget(hash: PBXProjectHash, projectName: string | undefined): { id: string; target: PBXObject } {
  const root = object(hash, 'PBXProject', hash.project.rootObject);
  const targets = ids(root.targets).map((id) => ({ id, target: object(hash, 'PBXNativeTarget', id) }));
  const apps = targets.filter(({ target }) => unquoted(target.productType) === 'com.apple.product-type.application');
  const app = apps.find(({ target }) => unquoted(target.name) === projectName) ?? apps[0];
  if (app === undefined) {
    throw new DropTrackPluginError('the Xcode project has no application target to embed the widget extension in');
  }
  return app;
}

/** The build configurations of a target, by name (Debug, Release…). */
function configurations(hash: PBXProjectHash, owner: PBXObject): { name: string; settings: PBXDictionary }[] {
  const list = object(hash, 'XCConfigurationList', unquoted(owner.buildConfigurationList));
  return ids(list.buildConfigurations).map((id) => {
    const configuration = object(hash, 'XCBuildConfiguration', id);
    const settings = configuration.buildSettings;
    return {
      name: unquoted(configuration.name) ?? id,
      settings: typeof settings === 'object' && !Array.isArray(settings) ? (settings as PBXDictionary) : {},
    };
  });
}

/** The settings the extension takes from the app's configuration of the same name, so they agree. */
const sharedSettings = [
  'DEVELOPMENT_TEAM',
  'IPHONEOS_DEPLOYMENT_TARGET',
  'SWIFT_VERSION',
  'TARGETED_DEVICE_FAMILY',
  'SWIFT_OPTIMIZATION_LEVEL',
  'MARKETING_VERSION',
  'CURRENT_PROJECT_VERSION',
];

function extensionSettings(widget: WidgetTarget, app: PBXDictionary, project: PBXDictionary): PBXDictionary {
  const settings: PBXDictionary = {
    CODE_SIGN_ENTITLEMENTS: quoted(`${widget.name}/${widget.name}.entitlements`),
    CODE_SIGN_STYLE: 'Automatic',
    INFOPLIST_FILE: quoted(`${widget.name}/Info.plist`),
    IPHONEOS_DEPLOYMENT_TARGET: project.IPHONEOS_DEPLOYMENT_TARGET ?? '15.1',
    LD_RUNPATH_SEARCH_PATHS: quoted('$(inherited) @executable_path/Frameworks @executable_path/../../Frameworks'),
    PRODUCT_BUNDLE_IDENTIFIER: quoted(widget.bundleIdentifier),
    PRODUCT_NAME: quoted('$(TARGET_NAME)'),
    SKIP_INSTALL: 'YES',
    SWIFT_VERSION: '5.0',
  };
  for (const key of sharedSettings) {
    const value = app[key];
    if (value !== undefined) settings[key] = value;
  }
  return settings;
}

/** The app's phase that copies extensions into PlugIns/ (dstSubfolderSpec 13), made if missing. */
function embedPhase(project: XcodeProject, app: PBXObject): PBXObject {
  const phases = project.hash.project.objects.PBXCopyFilesBuildPhase ?? {};
  for (const id of ids(app.buildPhases)) {
    const phase = phases[id];
    if (isObject(phase) && phase.dstSubfolderSpec === 13) return phase;
  }
  const name = 'Embed Foundation Extensions';
  const id = add(
    project,
    'PBXCopyFilesBuildPhase',
    {
      buildActionMask: 2147483647,
      dstPath: '""',
      dstSubfolderSpec: 13,
      files: [],
      name: quoted(name),
      runOnlyForDeploymentPostprocessing: 0,
    },
    name,
  );
  listOf(app, 'buildPhases').push(entry(id, name));
  return object(project.hash, 'PBXCopyFilesBuildPhase', id);
}

/**
 * Adds the widget extension's target, or does nothing if the project has a target of that name
 * (prebuild without --clean runs the plugin again on the project it wrote). Returns whether it added.
 */
export function addWidgetTarget(project: XcodeProject, widget: WidgetTarget, projectName?: string): boolean {
  const hash = project.hash;
  const existing = Object.values(hash.project.objects.PBXNativeTarget ?? {});
  if (existing.some((target) => isObject(target) && unquoted(target.name) === widget.name)) return false;
  const rootId = hash.project.rootObject;
  const root = object(hash, 'PBXProject', rootId);
  const { id: appId, target: app } = appTarget(hash, projectName);

  // The folder's files, in a group of their own under the project's main group.
  const swift = widgetSwiftFiles(widget);
  const files = [
    ...swift.map((path) => ({ path, type: 'sourcecode.swift' })),
    { path: 'Info.plist', type: 'text.plist.xml' },
    { path: `${widget.name}.entitlements`, type: 'text.plist.entitlements' },
  ].map(({ path, type }) => ({
    path,
    id: add(project, 'PBXFileReference', { lastKnownFileType: type, path: quoted(path), sourceTree: '"<group>"' }, path),
  }));
  const group = add(
    project,
    'PBXGroup',
    { children: files.map((file) => entry(file.id, file.path)), path: quoted(widget.name), sourceTree: '"<group>"' },
    widget.name,
  );
  listOf(object(hash, 'PBXGroup', unquoted(root.mainGroup)), 'children').push(entry(group, widget.name));

  const product = `${widget.name}.appex`;
  const productId = add(
    project,
    'PBXFileReference',
    {
      explicitFileType: '"wrapper.app-extension"',
      includeInIndex: 0,
      path: quoted(product),
      sourceTree: 'BUILT_PRODUCTS_DIR',
    },
    product,
  );
  listOf(object(hash, 'PBXGroup', unquoted(root.productRefGroup)), 'children').push(entry(productId, product));

  // The extension's phases: its Swift files; the pods' libraries and resources go to the other two.
  const compiled = files.slice(0, swift.length).map((file) => {
    const comment = `${file.path} in Sources`;
    return entry(add(project, 'PBXBuildFile', { fileRef: file.id, fileRef_comment: file.path }, comment), comment);
  });
  const phase = (isa: string, name: string, built: CommentedValue[]) => {
    const body = { buildActionMask: 2147483647, files: built, runOnlyForDeploymentPostprocessing: 0 };
    return entry(add(project, isa, body, name), name);
  };
  const phases = [
    phase('PBXSourcesBuildPhase', 'Sources', compiled),
    phase('PBXFrameworksBuildPhase', 'Frameworks', []),
    phase('PBXResourcesBuildPhase', 'Resources', []),
  ];

  // Debug and Release (whatever the app has), each agreeing with the app's.
  const projectSettings = configurations(hash, root);
  const built = configurations(hash, app).map(({ name, settings }) => {
    const level = projectSettings.find((configuration) => configuration.name === name)?.settings ?? {};
    const buildSettings = extensionSettings(widget, settings, level);
    const id = add(project, 'XCBuildConfiguration', { buildSettings, name: quoted(name) }, name);
    return entry(id, name);
  });
  const appList = object(hash, 'XCConfigurationList', unquoted(app.buildConfigurationList));
  const listComment = `Build configuration list for PBXNativeTarget "${widget.name}"`;
  const list = add(
    project,
    'XCConfigurationList',
    {
      buildConfigurations: built,
      defaultConfigurationIsVisible: 0,
      defaultConfigurationName: appList.defaultConfigurationName ?? 'Release',
    },
    listComment,
  );

  const targetId = add(
    project,
    'PBXNativeTarget',
    {
      buildConfigurationList: list,
      buildConfigurationList_comment: listComment,
      buildPhases: phases,
      buildRules: [],
      dependencies: [],
      name: quoted(widget.name),
      productName: quoted(widget.name),
      productReference: productId,
      productReference_comment: product,
      productType: '"com.apple.product-type.app-extension"',
    },
    widget.name,
  );
  listOf(root, 'targets').push(entry(targetId, widget.name));

  // The app embeds the extension and builds it first.
  const embedded = add(
    project,
    'PBXBuildFile',
    { fileRef: productId, fileRef_comment: product, settings: { ATTRIBUTES: ['RemoveHeadersOnCopy'] } },
    `${product} in Embed Foundation Extensions`,
  );
  listOf(embedPhase(project, app), 'files').push(entry(embedded, `${product} in Embed Foundation Extensions`));
  const proxy = add(
    project,
    'PBXContainerItemProxy',
    {
      containerPortal: rootId,
      containerPortal_comment: hash.project.rootObject_comment ?? 'Project object',
      proxyType: 1,
      remoteGlobalIDString: targetId,
      remoteInfo: quoted(widget.name),
    },
    'PBXContainerItemProxy',
  );
  const dependency = add(
    project,
    'PBXTargetDependency',
    { target: targetId, target_comment: widget.name, targetProxy: proxy, targetProxy_comment: 'PBXContainerItemProxy' },
    'PBXTargetDependency',
  );
  listOf(object(hash, 'PBXNativeTarget', appId), 'dependencies').push(entry(dependency, 'PBXTargetDependency'));
  return true;
}
