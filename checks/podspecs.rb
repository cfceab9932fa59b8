# Every podspec evaluates, and says what CocoaPods needs, as far as this machine can tell without
# CocoaPods (which installs from the network) or Xcode:
#
#     ruby checks/podspecs.rb
#
# Each *.podspec at the repository's root and in clients/expo/ios is evaluated as CocoaPods evaluates it
# (Ruby, in its own folder), with a stand-in `Pod::Spec` that records what it sets. Then, for each pod:
# the attributes `pod spec lint` requires are there; its name is its file's and its module's; its
# `source_files` match exactly the Swift files of the SwiftPM target (or folder) it stands for; every
# module those files import is the pod's dependency, Apple's or a look-alike imported only without the
# framework; its dependencies are pods here, at its version, with deployment targets no later than its
# own (CocoaPods refuses an app whose target is earlier than a pod's); the Expo module's pod installs at
# Expo's default deployment target (15.1) and its version is the root pods'.
require 'json'

ROOT = File.expand_path('..', __dir__)
EXPO_DEFAULT_TARGET = '15.1'
# Apple's modules, and FoundationNetworking: Linux's half of Foundation, imported only `#if canImport` it.
APPLE_MODULES = %w[Foundation FoundationNetworking Dispatch Synchronization ActivityKit SwiftUI WidgetKit UIKit AppIntents].freeze

# The part of CocoaPods' DSL the podspecs use, recording every value.
module Pod
  class Spec
    class Platform
      attr_reader :deployment_target

      def deployment_target=(value)
        @deployment_target = value
      end
    end

    attr_reader :attributes, :dependencies, :ios

    def initialize
      @attributes = {}
      @dependencies = {}
      @ios = Platform.new
      yield self if block_given?
    end

    def dependency(name, *requirements)
      @dependencies[name] = requirements
    end

    def version
      Gem::Version.new(@attributes['version'])
    end

    def method_missing(name, *args)
      key = name.to_s
      return super unless key.end_with?('=') && args.length == 1

      @attributes[key.chomp('=')] = args.first
    end

    def respond_to_missing?(name, include_private = false)
      name.to_s.end_with?('=') || super
    end

    def deployment_target
      ios.deployment_target || (attributes['platforms'] || {})[:ios]
    end
  end
end

def evaluate(path)
  Dir.chdir(File.dirname(path)) { eval(File.read(path), binding, path) } # rubocop:disable Security/Eval
end

def version_of(text)
  Gem::Version.new(text.to_s)
end

# The Swift files a pod compiles: its source_files globs, from its folder.
def pod_sources(path, spec)
  Dir.chdir(File.dirname(path)) do
    Array(spec.attributes['source_files']).flat_map { |glob| Dir.glob(glob) }.map { |file| File.expand_path(file) }.sort
  end
end

# The Swift files of the SwiftPM target the pod stands for (clients/expo/ios for the Expo module).
def target_sources(spec, path)
  folder = spec.attributes['name'] == 'DropTrackExpo' ? File.dirname(path) : File.join(ROOT, 'Sources', spec.attributes['name'])
  Dir.glob(File.join(folder, '**', '*.swift')).sort
end

# The modules a Swift file imports outside `#else` branches of `#if canImport(…)` (look-alikes there).
def imports(file)
  File.readlines(file).filter_map { |line| line[/^\s*(?:@testable\s+|public\s+|internal\s+)?import\s+(\w+)/, 1] }
end

failures = []
fail_with = ->(pod, message) { failures << "#{pod}: #{message}" }
paths = Dir.glob(File.join(ROOT, '*.podspec')) + Dir.glob(File.join(ROOT, 'clients/expo/ios/*.podspec'))
specs = paths.to_h { |path| [path, evaluate(path)] }
by_name = specs.to_h { |path, spec| [spec.attributes['name'], [path, spec]] }
root_version = File.read(File.join(ROOT, 'Sources/DropTrackCLI/CLIGuidance.swift'))[/dropTrackVersion = "([^"]+)"/, 1]

specs.each do |path, spec|
  name = spec.attributes['name']
  pod = File.basename(path)
  %w[name version summary homepage license author source swift_version source_files].each do |key|
    fail_with.call(pod, "#{key} is missing (pod spec lint requires it)") if spec.attributes[key].to_s.empty?
  end
  fail_with.call(pod, 'no iOS deployment target (s.ios.deployment_target or s.platforms)') unless spec.deployment_target
  fail_with.call(pod, "name #{name} is not the file's name") unless pod == "#{name}.podspec"
  module_name = spec.attributes['module_name'] || name
  fail_with.call(pod, "module #{module_name} is not #{name}: `import #{name}` would break") unless module_name == name
  fail_with.call(pod, "version #{spec.version} is not DropTrack's #{root_version}") unless spec.version == version_of(root_version)

  compiled = pod_sources(path, spec)
  expected = target_sources(spec, path)
  fail_with.call(pod, "source_files match nothing: #{spec.attributes['source_files']}") if compiled.empty?
  (expected - compiled).each { |file| fail_with.call(pod, "leaves out #{file.delete_prefix("#{ROOT}/")}") }
  (compiled - expected).each { |file| fail_with.call(pod, "takes in #{file.delete_prefix("#{ROOT}/")}") }

  imported = compiled.flat_map { |file| imports(file) }.uniq
  imported.reject { |mod| APPLE_MODULES.include?(mod) || mod.end_with?('Shim') || mod == name }.each do |mod|
    fail_with.call(pod, "its sources import #{mod}, which is not its dependency") unless spec.dependencies.key?(mod)
  end

  spec.dependencies.each do |dependency, requirements|
    next if dependency == 'ExpoModulesCore' # Expo's, from node_modules

    unless by_name.key?(dependency)
      fail_with.call(pod, "depends on #{dependency}, which has no podspec here")
      next
    end
    other = by_name[dependency][1]
    unless requirements == [spec.version.to_s] && other.version == spec.version
      fail_with.call(pod, "depends on #{dependency} #{requirements.inspect}, which is #{other.version}")
    end
    if version_of(other.deployment_target) > version_of(spec.deployment_target)
      fail_with.call(pod, "targets iOS #{spec.deployment_target} but #{dependency} needs #{other.deployment_target}: " \
                          'CocoaPods refuses such an app')
    end
  end
end

expo = by_name['DropTrackExpo']
if expo.nil?
  failures << 'clients/expo/ios has no DropTrackExpo.podspec: autolinking would not link the module'
else
  spec = expo[1]
  %w[ExpoModulesCore DropTrackLive DropTrackContract].each do |dependency|
    failures << "DropTrackExpo.podspec does not depend on #{dependency}" unless spec.dependencies.key?(dependency)
  end
  if version_of(spec.deployment_target) > version_of(EXPO_DEFAULT_TARGET)
    failures << "DropTrackExpo targets iOS #{spec.deployment_target}: an Expo app at its default #{EXPO_DEFAULT_TARGET} " \
                'could not install it'
  end
end

if failures.empty?
  puts "PASS #{specs.size} podspecs: #{by_name.keys.sort.join(', ')}"
else
  failures.each { |failure| puts "FAIL #{failure}" }
  exit 1
end
