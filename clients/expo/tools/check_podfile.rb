# Evaluates the Podfile the config plugin wrote (test/plugin-ios.test.ts leaves a prebuilt ios/ folder
# behind) as CocoaPods evaluates it, Ruby in the Podfile's folder, with a stand-in for CocoaPods' DSL
# that records each target's pods, and checks that CocoaPods could resolve DropTrack's pods without
# trunk: every pod DropTrackExpo (autolinked by use_expo_modules!) and DropTrackWidgets depend on, and
# theirs in turn, is named with a `:path` to a folder holding its podspec, in the target that needs it;
# and a pod both targets compile (DropTrackContract) comes from the same podspec in both.
#
#     ruby clients/expo/tools/check_podfile.rb <ios folder> <app target> <widget target>
#
# What it cannot show: CocoaPods itself installing (it fetches ExpoModulesCore and React Native).
require 'json'

EXPO_MODULE = File.expand_path('../ios/DropTrackExpo.podspec', __dir__)

# Pod::Spec as far as a dependency list goes, and Pod::Config for Expo's Podfile template.
module Pod
  class Spec
    attr_reader :name, :dependencies

    def initialize
      @dependencies = []
      yield self
    end

    def name=(value)
      @name = value
    end

    def dependency(name, *_requirements)
      @dependencies << name
    end

    def version
      Gem::Version.new('0')
    end

    # `s.ios.deployment_target = …`: recorded nowhere, like every other attribute here.
    def ios = self

    def method_missing(name, *args)
      name.to_s.end_with?('=') && args.length == 1 ? nil : super
    end

    def respond_to_missing?(name, include_private = false)
      name.to_s.end_with?('=') || super
    end
  end

  class Config
    def self.instance = new
    def installation_root = Dir.pwd
  end
end

def podspec(path)
  Dir.chdir(File.dirname(path)) { eval(File.read(path), binding, path) } # rubocop:disable Security/Eval
end

# The Podfile's DSL: targets with their pods; Expo's and React Native's helpers do nothing here.
class PodfileReader
  attr_reader :targets

  def initialize
    @targets = {}
    @stack = []
  end

  def target(name, &block)
    @targets[name] = { pods: {}, parent: @stack.last }
    @stack.push(name)
    instance_eval(&block)
    @stack.pop
  end

  def pod(name, *args)
    raise "pod '#{name}' outside every target" if @stack.empty?

    options = args.last.is_a?(Hash) ? args.last : {}
    @targets[@stack.last][:pods][name] = options
  end

  # Expo's template requires its scripts from node_modules (found with `node --print`); not here.
  def require(name)
    name == 'json' ? super : true
  end

  def `(_command)
    '/node_modules/package/package.json'
  end

  def use_native_modules!(*) = { reactNativePath: '../node_modules/react-native' }

  def method_missing(_name, *_args) = nil

  def respond_to_missing?(*) = true
end

ios, app_target, widget_target = ARGV
ios = File.expand_path(ios)
podfile = File.join(ios, 'Podfile')
reader = PodfileReader.new
Dir.chdir(ios) { reader.instance_eval(File.read(podfile), File.expand_path(podfile)) }
failures = []

# Where each target's pods come from, by name: the app's and the extension's DropTrackContract must be
# one podspec, or the two DeliveryAttributes could drift apart (the handbook's "same copy" trap).
sources = Hash.new { |hash, key| hash[key] = {} }

# What CocoaPods needs for a target: each wanted pod and its dependencies, found by :path.
check = lambda do |target, wanted|
  pods = reader.targets.dig(target, :pods)
  if pods.nil?
    failures << "the Podfile has no target '#{target}'"
    next
  end
  queue = wanted.dup
  seen = []
  until queue.empty?
    name = queue.shift
    next if seen.include?(name)

    seen << name
    spec_path = if name == 'DropTrackExpo'
                  EXPO_MODULE # autolinking: `pod 'DropTrackExpo', :path => node_modules/droptrack-expo/ios`
                elsif pods.dig(name, :path)
                  File.expand_path(File.join(pods[name][:path], "#{name}.podspec"), ios)
                end
    if spec_path.nil?
      failures << "#{target}: pod '#{name}' has no :path (it is not on CocoaPods trunk)"
      next
    end
    unless File.file?(spec_path)
      failures << "#{target}: #{spec_path} does not exist"
      next
    end
    sources[name][target] = File.realpath(spec_path)
    queue.concat(podspec(spec_path).dependencies.reject { |dependency| dependency == 'ExpoModulesCore' })
  end
  seen
end

app_pods = check.call(app_target, ['DropTrackExpo'])
widget_pods = check.call(widget_target, ['DropTrackWidgets'])
widget = reader.targets[widget_target]
failures << "#{widget_target} is inside #{widget[:parent]}: it would inherit React Native's pods" if widget && widget[:parent]
sources.each do |pod, by_target|
  next if by_target.values.uniq.length <= 1

  failures << "#{pod} comes from #{by_target.map { |target, path| "#{path} in #{target}" }.join(' and ')}: one contract, two copies"
end
if failures.empty?
  shared = sources.select { |_, by_target| by_target.length > 1 }.keys
  puts "PASS the Podfile resolves #{app_target}: #{app_pods.join(', ')}; #{widget_target}: #{widget_pods.join(', ')}; " \
       "#{shared.join(', ')} from one podspec in both"
else
  failures.each { |failure| puts "FAIL #{failure}" }
  exit 1
end
