# What DropTrack's root podspecs (DropTrackSHA256, DropTrackContract, DropTrackLive, DropTrackWidgets)
# have in common: one pod per SwiftPM target that other sources import by name, each its own module, so
# `import DropTrackContract` means the same under CocoaPods as under SwiftPM. The version is the CLI's
# (Sources/DropTrackCLI/CLIGuidance.swift), so a release moves them together; checks/podspecs.rb evaluates
# every podspec in the test command.
module DropTrackPod
  ROOT = File.expand_path('../..', __dir__)
  VERSION = File.read(File.join(ROOT, 'Sources/DropTrackCLI/CLIGuidance.swift'))[/dropTrackVersion = "([^"]+)"/, 1]

  # The repository these files are in: its `origin` remote (CocoaPods uses `source` only to publish;
  # a Podfile's `:git =>` or `:path =>` says where to get the pod), or the folder itself.
  def self.repository
    remote = `git -C "#{ROOT}" config --get remote.origin.url 2>/dev/null`.strip
    remote.empty? ? "file://#{ROOT}" : remote
  end

  # Sets what every DropTrack pod shares; `target` is the SwiftPM target whose sources the pod builds.
  def self.configure(spec, target:, summary:, ios:)
    spec.name = target
    spec.module_name = target
    spec.version = VERSION
    spec.summary = summary
    spec.description = "#{summary} Part of DropTrack, a self-hosted server that keeps iOS Live Activities " \
                       'and Android Live Updates current.'
    spec.homepage = repository
    spec.license = { :type => 'Proprietary', :text => 'See the DropTrack repository.' }
    spec.author = 'DropTrack contributors'
    spec.source = { :git => repository, :tag => "v#{VERSION}" }
    spec.ios.deployment_target = ios
    # Swift 6 language mode, as Package.swift builds these targets (Xcode 26's Swift 6.2 or later).
    spec.swift_version = '6.0'
    spec.source_files = "Sources/#{target}/**/*.swift"
  end
end
