// A runtime stand-in for `@expo/config-plugins` used only by the tests: each `with…` records its
// mod on the config, and `runMods` applies them to the files a test hands in, in order, as
// prebuild does. It lets the tests check the plugin's wiring, not only its transformations.
'use strict';

function recorder(name) {
  return (config, mod) => ({ ...config, mods: [...(config.mods || []), { name, mod }] });
}

exports.withInfoPlist = recorder('ios.infoPlist');
exports.withEntitlementsPlist = recorder('ios.entitlements');
exports.withXcodeProject = recorder('ios.xcodeproj');
exports.withAndroidManifest = recorder('android.manifest');
exports.withDangerousMod = (config, [platform, mod]) => recorder(`${platform}.dangerous`)(config, mod);
exports.createRunOncePlugin = (plugin, name) => (config, props) => {
  const applied = config._internal_plugins || [];
  if (applied.includes(name)) return config;
  return plugin({ ...config, _internal_plugins: [...applied, name] }, props);
};
